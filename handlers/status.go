package handlers

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/statuspage"
	"hindsight/templates"
)

// The public status page: what it shows and why.
//
// An incident appears only when it is marked public, and then only with its title, status, its
// Statuspage impact (the worst level of its impact windows; severity stays internal), affected services, its public timeline entries and its impact
// windows' times and levels (as the services' states). Its postmortem appears only while it is
// published, and then as the version recorded at publication (models.PublicPostmortem), never as
// the live text: the summary and the narrative sections reach the public through that version
// alone. The trigger, the lessons, the detection method, internal timeline entries, window notes
// and the follow-ups' details never do. The store's public queries do not even read them.

// statusCacheTTL bounds how long an answer is kept while the change mark stands still: with
// several servers on PostgreSQL a transaction can commit a lower mark after a higher one was read.
const statusCacheTTL = 10 * time.Second

// statusCacheLimit bounds the cache. Its keys are route patterns, a handful; the base URL in the
// answers comes from the settings, whose changes move the change mark like any other.
const statusCacheLimit = 64

// markRecheck is how long the change mark read from the database is trusted while this process
// writes nothing: changes made by other servers on the same database show within it.
const markRecheck = 250 * time.Millisecond

// statusCache keeps the status page's answers under the store's change mark, so that serving
// one costs no query at all while nothing changes.
type statusCache struct {
	mu      sync.Mutex
	entries map[string]statusEntry

	// The change mark last read, the local write count before reading it, and when.
	mark       int64
	markWrites int64
	markAt     time.Time

	// The status host, when it was read, and whether a background read is under way
	// (CurrentStatusHost).
	host        string
	hostAt      time.Time
	hostKnown   bool
	hostLoading bool
}

// changeMark is the store's change mark, asked of the database again when this process wrote
// anything since it last asked, or markRecheck has passed.
func (h *Handlers) changeMark(ctx context.Context, now time.Time) (int64, error) {
	writes := h.Store.LocalWrites()
	sc := &h.status
	sc.mu.Lock()
	if !sc.markAt.IsZero() && sc.markWrites == writes && now.Sub(sc.markAt) < markRecheck {
		mark := sc.mark
		sc.mu.Unlock()
		return mark, nil
	}
	sc.mu.Unlock()
	mark, err := h.Store.ChangeMark(ctx)
	if err != nil {
		return 0, err
	}
	sc.mu.Lock()
	sc.mark, sc.markWrites, sc.markAt = mark, writes, now
	sc.mu.Unlock()
	return mark, nil
}

type statusEntry struct {
	mark        int64
	built       time.Time
	contentType string
	body        []byte
	gzipped     []byte // body compressed, for clients that accept it
	etag        string
}

func (sc *statusCache) get(key string, mark int64, now time.Time) (statusEntry, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	e, ok := sc.entries[key]
	if !ok || e.mark != mark || now.Sub(e.built) > statusCacheTTL {
		return statusEntry{}, false
	}
	return e, true
}

func (sc *statusCache) put(key string, e statusEntry) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.entries == nil || len(sc.entries) >= statusCacheLimit {
		sc.entries = make(map[string]statusEntry)
	}
	sc.entries[key] = e
}

// gzipWriters are reused: a new gzip writer allocates 1.1 MB of compressor state, two thirds of
// what a status page built again after a write allocated (BenchmarkStatusPage/rebuilt), for the
// garbage collector to reclaim.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return zw
}}

// gzipBody compresses a body for clients that accept gzip.
func gzipBody(body []byte) ([]byte, error) {
	var gz bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&gz)
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// serveStatus answers from the cache while the records are unchanged, else builds the answer and
// keeps it. Everything it serves is public, for anyone to cache a little while.
func (h *Handlers) serveStatus(c echo.Context, contentType string, build func(ctx context.Context) ([]byte, error)) error {
	ctx := c.Request().Context()
	now := time.Now()
	mark, err := h.changeMark(ctx, now)
	if err != nil {
		return err
	}
	key := c.Path()
	if onStatusHost(c) {
		key = "status-host " + key // its pages link to the root, not /status
	}
	e, ok := h.status.get(key, mark, now)
	if !ok {
		body, err := build(ctx)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		gzipped, err := gzipBody(body)
		if err != nil {
			return err
		}
		e = statusEntry{mark: mark, built: now, contentType: contentType, body: body, gzipped: gzipped, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		h.status.put(key, e)
	}
	header := c.Response().Header()
	header.Set("Cache-Control", "public, max-age=15")
	header.Set("ETag", e.etag)
	header.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	if c.Request().Header.Get("If-None-Match") == e.etag {
		return c.NoContent(http.StatusNotModified)
	}
	body := e.body
	if strings.Contains(c.Request().Header.Get(echo.HeaderAcceptEncoding), "gzip") {
		body = e.gzipped
		header.Set(echo.HeaderContentEncoding, "gzip")
	}
	// With its length known the body goes out in one piece, not chunked.
	header.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	return c.Blob(http.StatusOK, e.contentType, body)
}

// statusHead reads the status page settings for a page's head: its name, zone, logo and
// support link, and whether it is served on the status host.
func (h *Handlers) statusHead(c echo.Context, title string) (templates.StatusHead, error) {
	ctx := c.Request().Context()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return templates.StatusHead{}, err
	}
	if title == "" {
		title = "Current status"
	}
	head := templates.StatusHead{Name: settings.Name, Location: settings.Location(), Title: title, OwnHost: onStatusHost(c), SupportURL: settings.SupportURL}
	logo, err := h.Store.StatusLogoUpdatedAt(ctx)
	if err != nil {
		return head, err
	}
	head.Logo = logoPath(head, logo)
	return head, nil
}

// statusPageInfo describes the status page as Statuspage's "page" object does.
func (h *Handlers) statusPageInfo(settings models.StatusSettings, updated *time.Time) statuspage.Page {
	return statuspage.PageInfo(settings, h.statusURL(settings), updated)
}

// publishedPostmortem is the postmortem the status page shows for an incident: the version
// recorded at its last publication, while it is published; nil otherwise.
func publishedPostmortem(inc *models.Incident, versions map[int64]*models.PostmortemVersion, loc *time.Location) (*templates.PublishedPostmortem, error) {
	markdown, v, ok, err := statuspage.PublishedPostmortem(inc, versions, loc)
	if !ok || err != nil {
		return nil, err
	}
	return &templates.PublishedPostmortem{Markdown: markdown, Version: v.Version, PublishedAt: v.PublishedAt}, nil
}

// latestPostmortems loads the published versions of the published incidents among these.
func (h *Handlers) latestPostmortems(ctx context.Context, incidents []models.Incident) (map[int64]*models.PostmortemVersion, error) {
	return statuspage.LatestPostmortems(ctx, h.Store, incidents)
}

// statusIncidentView is an incident as the status page shows it; the preview builds the same.
func statusIncidentView(head templates.StatusHead, inc *models.Incident, pm *templates.PublishedPostmortem) templates.StatusIncidentView {
	v := templates.StatusIncidentView{
		Head: head, ID: inc.ID, Title: inc.Title, Status: inc.Status, Impact: statuspage.Impact(inc),
		Started: publicStart(inc), Services: inc.ServiceNames(), Updates: models.PublicEvents(inc), Postmortem: pm,
	}
	if inc.Status == "resolved" && inc.ResolvedAt != nil {
		v.Resolved = inc.ResolvedAt
	}
	return v
}

// publicStart is when the status page says an incident began: the start of impact, else when it
// was filed.
func publicStart(inc *models.Incident) time.Time {
	if inc.StartedAt != nil {
		return *inc.StartedAt
	}
	return inc.CreatedAt
}

// statusMonths groups history rows by month in the page's zone, newest first as given.
func statusMonths(incidents []models.Incident, loc *time.Location) []templates.StatusMonth {
	var months []templates.StatusMonth
	for n := range incidents {
		inc := &incidents[n]
		started := publicStart(inc)
		label := started.In(loc).Format("January 2006")
		if len(months) == 0 || months[len(months)-1].Label != label {
			months = append(months, templates.StatusMonth{Label: label})
		}
		row := templates.StatusHistoryRow{
			ID: inc.ID, Title: inc.Title, Impact: statuspage.Impact(inc), Status: inc.Status,
			Started: started, Postmortem: inc.PostmortemState == models.PostmortemPublished,
		}
		if inc.Status == "resolved" {
			row.Resolved = inc.ResolvedAt
		}
		last := &months[len(months)-1]
		last.Incidents = append(last.Incidents, row)
	}
	return months
}

// exportPublic writes public incidents in Statuspage's shape (statuspage.ExportPublic).
func (h *Handlers) exportPublic(ctx context.Context, incidents []models.Incident, page statuspage.Page, loc *time.Location) ([]statuspage.Incident, error) {
	return statuspage.ExportPublic(ctx, h.Store, incidents, page, loc)
}
