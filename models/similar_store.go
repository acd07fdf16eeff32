package models

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// Similar incidents are ranked once and kept in the database (migration 00016): ranking reads up
// to a thousand incidents sharing a word and was most of an incident page's time, while reading a
// kept ranking is one statement. A ranking is redone at once when what it was ranked from (the
// incident's title, summary, start, services and factors: its basis) has changed, and in the
// background once it is older than SimilarMaxAge, because the other incidents change too.

// SimilarMaxAge is how old a kept ranking may be before it is refreshed in the background.
const SimilarMaxAge = time.Hour

// similarQueueSize is how many incidents may wait to be ranked in the background; past it a
// queued incident is ranked on its first view instead.
const similarQueueSize = 16384

// similarLimit is how many similar incidents an incident page suggests.
const similarLimit = 5

// similarBatch is how many queued incidents the keeper ranks before it writes their rankings in
// one transaction.
const similarBatch = 64

// similarReverseLimit is how many incidents resembling a filed or edited one, earlier or later,
// are looked at to rank again the later ones, whose suggestions it may now belong among.
const similarReverseLimit = 50

// similarBasis hashes what an incident's ranking is made from. Tags are compared by id, so a
// rename does not force a new ranking: shared tags are named when the ranking is read.
func similarBasis(inc *Incident) string {
	h := fnv.New64a()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	write(inc.Title)
	write(inc.Summary)
	if inc.StartedAt != nil {
		write(strconv.FormatInt(inc.StartedAt.UnixNano(), 10))
	} else {
		write("")
	}
	for _, ids := range [][]int64{tagIDs(inc.Services, func(s Service) int64 { return s.ID }), tagIDs(inc.Factors, func(f Factor) int64 { return f.ID })} {
		for _, id := range ids {
			write(strconv.FormatInt(id, 10))
		}
		write("|")
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

func tagIDs[T any](tags []T, id func(T) int64) []int64 {
	ids := make([]int64, len(tags))
	for n, t := range tags {
		ids[n] = id(t)
	}
	slices.Sort(ids)
	return ids
}

// keptSimilar is a kept ranking as read back: the suggestions still live, in rank order.
type keptSimilar struct {
	found      bool
	basis      string
	computedAt time.Time
	similar    []Similar
}

// readSimilar reads an incident's kept ranking in one statement. Suggestions deleted since, or
// whose start has moved to after the incident's, are left out; shared tags are named from inc's.
func (s *Store) readSimilar(ctx context.Context, inc *Incident) (keptSimilar, error) {
	var rows []struct {
		Basis      string
		ComputedAt int64
		SimilarID  *int64
		Score      float64
		TextMatch  bool
		Shares     string
		Title      string
		StartedAt  *time.Time
		Gone       bool
	}
	err := s.read.WithContext(ctx).Raw(`SELECT st.basis, st.computed_at, x.similar_id, x.score, x.text_match, x.shares,
			i.title, i.started_at, i.deleted_at IS NOT NULL AS gone
		FROM similar_sets st
		LEFT JOIN similar_suggestions x ON x.incident_id = st.incident_id
		LEFT JOIN incidents i ON i.id = x.similar_id
		WHERE st.incident_id = ? ORDER BY x.position`, inc.ID).Scan(&rows).Error
	if err != nil {
		return keptSimilar{}, fmt.Errorf("read similar incidents of incident %d: %w", inc.ID, err)
	}
	if len(rows) == 0 {
		return keptSimilar{}, nil
	}
	kept := keptSimilar{found: true, basis: rows[0].Basis, computedAt: time.Unix(rows[0].ComputedAt, 0)}
	for _, r := range rows {
		if r.SimilarID == nil || r.Gone || (inc.StartedAt != nil && r.StartedAt != nil && !r.StartedAt.Before(*inc.StartedAt)) {
			continue
		}
		kept.similar = append(kept.similar, Similar{
			ID: *r.SimilarID, Title: r.Title, StartedAt: r.StartedAt, Score: r.Score, TextMatch: r.TextMatch,
			Shares: shareNames(r.Shares, inc),
		})
	}
	return kept, nil
}

// shareTokens writes what a suggestion shares with inc as tag ids: "f3 s12".
func shareTokens(sim Similar) string {
	var tokens []string
	for _, id := range sim.sharedFactors {
		tokens = append(tokens, "f"+strconv.FormatInt(id, 10))
	}
	for _, id := range sim.sharedServices {
		tokens = append(tokens, "s"+strconv.FormatInt(id, 10))
	}
	return strings.Join(tokens, " ")
}

// shareNames names shared tags from inc's own: factors first, then services, each by name. A tag
// inc no longer has is left out (its ranking is then redone, as the basis has changed).
func shareNames(tokens string, inc *Incident) []string {
	if tokens == "" {
		return nil
	}
	has := map[string]bool{}
	for _, t := range strings.Fields(tokens) {
		has[t] = true
	}
	var names []string
	for _, f := range inc.Factors {
		if has["f"+strconv.FormatInt(f.ID, 10)] {
			names = append(names, factorPhrase(f.Name))
		}
	}
	for _, sv := range inc.Services {
		if has["s"+strconv.FormatInt(sv.ID, 10)] {
			names = append(names, sv.Name)
		}
	}
	return names
}

// factorPhrase is a factor's name as it reads inside a sentence: "retry amplification".
func factorPhrase(name string) string {
	if name == "" {
		return name
	}
	return strings.ToLower(name[:1]) + name[1:]
}

// rankSimilar ranks inc's similar incidents afresh and keeps the ranking, replacing any kept one.
func (s *Store) rankSimilar(ctx context.Context, inc *Incident, basis string) ([]Similar, error) {
	similar, err := s.SimilarIncidents(ctx, similarQueryOf(inc), similarLimit)
	if err != nil {
		return nil, err
	}
	if err := s.keepRankings(ctx, []similarRanking{{inc.ID, basis, similar}}); err != nil {
		return nil, err
	}
	return similar, nil
}

// similarRanking is one incident's ranking, worked out and waiting to be kept.
type similarRanking struct {
	incidentID int64
	basis      string
	similar    []Similar
}

// keepRankings keeps rankings in one write transaction, replacing the kept ones: the keeper
// ranks a batch of incidents with reads alone and writes them together. An incident deleted (or
// a suggestion removed) meanwhile refuses the foreign key and fails the batch: the rankings are
// then kept one by one, passing over the one that fails (it is ranked again on its next view).
func (s *Store) keepRankings(ctx context.Context, rankings []similarRanking) error {
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		for _, r := range rankings {
			c.incident(r.incidentID)
			if err := keepRanking(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, gorm.ErrForeignKeyViolated) && len(rankings) > 1 {
		for _, r := range rankings {
			if err := s.keepRankings(ctx, []similarRanking{r}); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil && !errors.Is(err, gorm.ErrForeignKeyViolated) {
		return fmt.Errorf("keep similar incidents: %w", err)
	}
	return nil
}

func keepRanking(tx *gorm.DB, r similarRanking) error {
	// The set's row first: a concurrent ranking of the same incident waits on its lock, then
	// deletes what this one wrote instead of colliding with it.
	err := tx.Exec(`INSERT INTO similar_sets (incident_id, basis, computed_at) VALUES (?, ?, ?)
		ON CONFLICT (incident_id) DO UPDATE SET basis = excluded.basis, computed_at = excluded.computed_at`,
		r.incidentID, r.basis, time.Now().Unix()).Error
	if err != nil {
		return err
	}
	if err := tx.Exec("DELETE FROM similar_suggestions WHERE incident_id = ?", r.incidentID).Error; err != nil {
		return err
	}
	if len(r.similar) == 0 {
		return nil
	}
	values, args := make([]string, len(r.similar)), make([]any, 0, 6*len(r.similar))
	for n, sim := range r.similar {
		values[n] = "(?, ?, ?, ?, ?, ?)"
		args = append(args, r.incidentID, n, sim.ID, sim.Score, sim.TextMatch, shareTokens(sim))
	}
	return tx.Exec(`INSERT INTO similar_suggestions (incident_id, position, similar_id, score, text_match, shares)
		VALUES `+strings.Join(values, ", "), args...).Error
}

// laterSimilar lists the live incidents that started after inc and resemble it, best first: the
// incidents whose suggestions inc may now belong among.
func (s *Store) laterSimilar(ctx context.Context, inc *Incident) ([]int64, error) {
	if inc.StartedAt == nil {
		return nil, nil
	}
	// An incident filed as it starts, the usual case, has no live incident started after it:
	// one indexed statement then saves ranking a thousand incidents by text.
	latest, err := s.latestStart(ctx)
	if err != nil || latest == nil || !latest.After(*inc.StartedAt) {
		return nil, err
	}
	q := similarQueryOf(inc)
	q.Before = nil
	candidates, err := s.SimilarIncidents(ctx, q, similarReverseLimit)
	if err != nil {
		return nil, err
	}
	var later []int64
	for _, c := range candidates {
		if c.StartedAt != nil && c.StartedAt.After(*inc.StartedAt) {
			later = append(later, c.ID)
		}
	}
	return later, nil
}

// latestStart is the latest start of a live incident, nil when none has one.
func (s *Store) latestStart(ctx context.Context) (*time.Time, error) {
	var starts []time.Time
	err := s.read.WithContext(ctx).Raw(`SELECT started_at FROM incidents WHERE deleted_at IS NULL AND started_at IS NOT NULL
		ORDER BY started_at DESC, id DESC LIMIT 1`).Scan(&starts).Error
	if err != nil {
		return nil, fmt.Errorf("latest incident start: %w", err)
	}
	if len(starts) == 0 {
		return nil, nil
	}
	return &starts[0], nil
}

func similarQueryOf(inc *Incident) SimilarQuery {
	return SimilarQuery{
		ExcludeID: inc.ID, Before: inc.StartedAt, Text: inc.Title + " " + inc.Summary,
		Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
	}
}

// SimilarKeeper hands out incidents' kept similar incidents, ranks those never ranked or whose
// basis changed, and refreshes old rankings in the background once Run is running. Safe for
// concurrent use.
type SimilarKeeper struct {
	store  *Store
	log    *slog.Logger
	maxAge time.Duration
	queue  chan int64
	mu     sync.Mutex
	queued map[int64]bool
	// filed holds the queued incidents that were filed or edited: the later incidents they
	// resemble are ranked again with them.
	filed map[int64]bool
	below int64 // the backfill has looked at every incident from this id up
	// ranking holds the rankings under way, so concurrent views of one incident share one.
	ranking map[int64]*similarFlight
	// busy tells whether the server is answering requests (RestWhile); nil, never.
	busy atomic.Pointer[func() bool]
}

// RestWhile makes the keeper rest between batches while busy says the server is answering
// requests (similarRest), and rank at full speed while it is idle: a large import is ranked as
// fast as the machine allows when nobody is using it, and slowly beside the people who are.
func (k *SimilarKeeper) RestWhile(busy func() bool) { k.busy.Store(&busy) }

type similarFlight struct {
	basis   string
	done    chan struct{}
	similar []Similar
	err     error
}

// NewSimilarKeeper returns a keeper for the store's incidents. Without Run, old rankings are
// served as they are.
func NewSimilarKeeper(store *Store, log *slog.Logger) *SimilarKeeper {
	return &SimilarKeeper{store: store, log: log, maxAge: SimilarMaxAge, queue: make(chan int64, similarQueueSize), queued: map[int64]bool{}, filed: map[int64]bool{}, ranking: map[int64]*similarFlight{}}
}

// For returns up to five earlier incidents like inc, in rank order.
func (k *SimilarKeeper) For(ctx context.Context, inc *Incident) ([]Similar, error) {
	kept, err := k.store.readSimilar(ctx, inc)
	if err != nil {
		return nil, err
	}
	basis := similarBasis(inc)
	if !kept.found || kept.basis != basis {
		similar, err := k.rankShared(ctx, inc, basis)
		if err != nil {
			return nil, err
		}
		return nameShares(similar, inc), nil
	}
	if time.Since(kept.computedAt) > k.maxAge {
		k.refreshLater(inc.ID)
	}
	return kept.similar, nil
}

// rankShared ranks inc, or waits for a ranking of the same incident and basis already under way.
func (k *SimilarKeeper) rankShared(ctx context.Context, inc *Incident, basis string) ([]Similar, error) {
	k.mu.Lock()
	f := k.ranking[inc.ID]
	if f != nil && f.basis == basis {
		k.mu.Unlock()
		select {
		case <-f.done:
			if f.err == nil {
				return slices.Clone(f.similar), nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// The one ranking failed (perhaps its request went away): rank for this view.
		return k.store.rankSimilar(ctx, inc, basis)
	}
	f = &similarFlight{basis: basis, done: make(chan struct{})}
	k.ranking[inc.ID] = f
	k.mu.Unlock()
	f.similar, f.err = k.store.rankSimilar(ctx, inc, basis)
	k.mu.Lock()
	if k.ranking[inc.ID] == f {
		delete(k.ranking, inc.ID)
	}
	k.mu.Unlock()
	close(f.done)
	return slices.Clone(f.similar), f.err
}

// nameShares rewrites freshly ranked suggestions' shared tags the way kept ones read.
func nameShares(similar []Similar, inc *Incident) []Similar {
	for n := range similar {
		similar[n].Shares = shareNames(shareTokens(similar[n]), inc)
	}
	return similar
}

// Queue asks for a filed or edited incident's similar incidents to be ranked in the background
// soon, so that its first view finds them ranked, and for the later incidents it resembles to be
// ranked again with it, so that it appears among their suggestions within moments rather than
// when their rankings grow old. Without Run the queue only fills (to similarQueueSize); views
// rank what is not ranked yet either way.
func (k *SimilarKeeper) Queue(id int64) {
	k.mu.Lock()
	k.filed[id] = true
	k.mu.Unlock()
	k.refreshLater(id)
}

// refreshLater queues an incident for a new ranking, unless it is queued already or the queue is
// full (it is then queued again on a later view).
func (k *SimilarKeeper) refreshLater(id int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.queued[id] {
		return
	}
	select {
	case k.queue <- id:
		k.queued[id] = true
	default:
	}
}

// Run refreshes queued rankings, and between them ranks every live incident that has none,
// newest first, one at a time, until ctx ends. A failure is logged; the incident is then ranked on
// its next view instead.
func (k *SimilarKeeper) Run(ctx context.Context) {
	backfill := true
	for ctx.Err() == nil {
		// A panic ranking one incident is logged and the keeper goes on with the next: it runs
		// beside the requests, where a panic would end the process.
		err := Safely(func() error {
			if backfill {
				select {
				case id := <-k.queue:
					k.paced(ctx, func() { k.refresh(ctx, id) })
				default:
					k.paced(ctx, func() { backfill = k.backfill(ctx) })
				}
				return nil
			}
			select {
			case <-ctx.Done():
			case id := <-k.queue:
				k.paced(ctx, func() { k.refresh(ctx, id) })
			}
			return nil
		})
		var p *PanicError
		if errors.As(err, &p) {
			k.log.Error("rank similar incidents", "err", err, "stack", string(p.Stack))
		}
	}
}

// similarRest is how long the keeper rests after ranking a batch while the server is busy, as a
// multiple of the time the batch took: at 2 it uses at most a third of one core, so a burst of
// writes keeps the rest for the requests (ranking an incident reads up to a thousand others by
// text, a few milliseconds, and was half the server's CPU during a burst). What waits meanwhile
// stays queued; an incident's own page ranks it on its first view if the keeper has not yet.
const similarRest = 2

// similarMaxRest bounds one rest, so a batch slowed by a busy machine does not stall the queue.
const similarMaxRest = 2 * time.Second

// paced runs one batch of the keeper's work, then rests in proportion to its time.
func (k *SimilarKeeper) paced(ctx context.Context, work func()) {
	began := time.Now()
	work()
	busy := k.busy.Load()
	rest := min(similarRest*time.Since(began), similarMaxRest)
	if rest <= 0 || busy == nil || !(*busy)() {
		return
	}
	t := time.NewTimer(rest)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// similarGather is how long the keeper gathers queued incidents after the first before it ranks
// them and keeps their rankings in one write transaction: a burst of API writes costs the single
// writer one ranking transaction per second, not one per write. The suggestions of earlier
// incidents are then at most this much later than the write (the issue allows a minute).
var similarGather = time.Second

// refresh ranks a queued incident with every other one queued within similarGather (up to
// similarBatch), and keeps their rankings in one write transaction.
func (k *SimilarKeeper) refresh(ctx context.Context, first int64) {
	ids := []int64{first}
	gather := time.NewTimer(similarGather)
	defer gather.Stop()
drain:
	for len(ids) < similarBatch {
		select {
		case id := <-k.queue:
			ids = append(ids, id)
		case <-gather.C:
			break drain
		case <-ctx.Done():
			break drain
		}
	}
	k.mu.Lock()
	filed := map[int64]bool{}
	for _, id := range ids {
		delete(k.queued, id)
		if k.filed[id] {
			filed[id] = true
			delete(k.filed, id)
		}
	}
	k.mu.Unlock()
	_ = k.rankBatch(ctx, ids, filed)
}

// backfill ranks a batch of incidents that have no ranking and tells whether more may remain. An
// incident that cannot be ranked is passed over (and ranked on its next view), so one bad record
// never stops the others; a batch that fails whole means the database is the trouble, and the
// backfill waits for the next start.
func (k *SimilarKeeper) backfill(ctx context.Context) bool {
	ids, err := k.store.unrankedIncidents(ctx, k.below, 20)
	if err != nil {
		if ctx.Err() == nil {
			k.log.Warn("find incidents without similar incidents ranked", "err", err)
		}
		return false
	}
	if len(ids) == 0 {
		k.log.Info("similar incidents ranked for every incident")
		return false
	}
	failed := k.rankBatch(ctx, ids, nil)
	k.below = ids[len(ids)-1]
	return ctx.Err() == nil && failed < len(ids)
}

// rankBatch ranks the incidents whose kept ranking is not current, with reads alone, and keeps
// the new rankings in one write transaction. For each incident in filed it also ranks again the
// later incidents it resembles, current or not. It returns how many of ids could not be ranked;
// each failure is logged.
func (k *SimilarKeeper) rankBatch(ctx context.Context, ids []int64, filed map[int64]bool) (failed int) {
	var rankings []similarRanking
	planned := map[int64]bool{}
	var plan func(id int64, force bool) error
	plan = func(id int64, force bool) error {
		if planned[id] {
			return nil
		}
		planned[id] = true
		r, inc, err := k.prepare(ctx, id, force)
		if err != nil {
			if ctx.Err() == nil {
				k.log.Warn("rank similar incidents", "incident", id, "err", err)
			}
			return err
		}
		if r != nil {
			rankings = append(rankings, *r)
		}
		if inc != nil && filed[id] {
			later, err := k.store.laterSimilar(ctx, inc)
			if err != nil {
				k.log.Warn("find later incidents like a filed one", "incident", id, "err", err)
			}
			for _, other := range later {
				_ = plan(other, true)
			}
		}
		return nil
	}
	for _, id := range ids {
		if plan(id, false) != nil {
			failed++
		}
	}
	if len(rankings) == 0 {
		return failed
	}
	if err := k.store.keepRankings(ctx, rankings); err != nil {
		if ctx.Err() == nil {
			k.log.Warn("keep similar incidents", "incidents", len(rankings), "err", err)
		}
		return len(ids)
	}
	return failed
}

// prepare ranks one stored incident with reads alone: nil when it is gone, or when its kept
// ranking is current and force is not set. It also returns the incident it read.
func (k *SimilarKeeper) prepare(ctx context.Context, id int64, force bool) (*similarRanking, *Incident, error) {
	inc, err := k.store.similarSubject(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	kept, err := k.store.readSimilar(ctx, inc)
	if err != nil {
		return nil, nil, err
	}
	basis := similarBasis(inc)
	if !force && kept.found && kept.basis == basis && time.Since(kept.computedAt) <= k.maxAge {
		return nil, inc, nil // an edit that changed nothing the ranking reads, or ranked meanwhile
	}
	similar, err := k.store.SimilarIncidents(ctx, similarQueryOf(inc), similarLimit)
	if err != nil {
		return nil, nil, err
	}
	return &similarRanking{inc.ID, basis, similar}, inc, nil
}

// similarSubject reads what an incident's ranking is made from, in two statements: its row and
// its own tags (its timeline, windows, follow-ups and sections are not read).
func (s *Store) similarSubject(ctx context.Context, id int64) (*Incident, error) {
	db := s.read.WithContext(ctx)
	inc, _, err := s.incidentRow(db, id)
	if err != nil {
		return nil, err
	}
	if err := loadTags(db, map[int64]*Incident{inc.ID: inc}, []int64{inc.ID}); err != nil {
		return nil, fmt.Errorf("load tags of incident %d: %w", id, err)
	}
	return inc, nil
}

// unrankedIncidents lists up to limit live incidents below the id below (any, when it is 0) that
// have no kept ranking, newest first.
func (s *Store) unrankedIncidents(ctx context.Context, below int64, limit int) ([]int64, error) {
	if below == 0 {
		below = math.MaxInt64
	}
	var ids []int64
	err := s.read.WithContext(ctx).Raw(`SELECT id FROM incidents i WHERE id < ? AND deleted_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM similar_sets st WHERE st.incident_id = i.id)
		ORDER BY id DESC LIMIT ?`, below, limit).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("incidents without similar incidents ranked: %w", err)
	}
	return ids, nil
}

// IncidentPageMark returns a mark that changes whenever anything an incident's page shows
// changes, apart from the clock, in any process: the generation of the incident's last change
// seen, which the write path moves with its row, timeline, windows, follow-ups, tags, links and
// similar ranking and with the rows of the incidents it links to or suggests (changes.go), and the
// generation of the last shared change (names, settings). It runs one statement, the look at
// what changed (versions.go).
func (s *Store) IncidentPageMark(ctx context.Context, id int64) (string, error) {
	if _, err := s.syncVersions(ctx); err != nil {
		return "", fmt.Errorf("read the page mark of incident %d: %w", id, err)
	}
	m := s.markOf(id)
	return fmt.Sprintf("%d/%d", m.incident, m.shared), nil
}
