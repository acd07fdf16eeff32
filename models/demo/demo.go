// Package demo loads a handful of sample incidents, written from the facts of real published
// postmortems, so that a fresh installation has something to show and tests have realistic data.
package demo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"hindsight/models"
)

// Source marks the incidents this package created, so that a second Load finds them.
const Source = "demo"

// Sample is one sample incident with its timeline, impact windows and follow-ups.
type Sample struct {
	Key      string
	Incident models.IncidentInput
	Children models.Children
}

// Load adds the sample incidents that are not there yet and returns how many it added.
// Idempotent: a second run adds nothing. A sample someone has deleted stays deleted.
func Load(ctx context.Context, s *models.Store) (int, error) {
	added := 0
	for _, sample := range Incidents() {
		id, err := s.FindBySource(ctx, Source, sample.Key)
		if err != nil {
			return added, err
		}
		if id != 0 {
			continue
		}
		in := sample.Incident
		in.Source, in.ExternalID = Source, sample.Key
		if _, err := s.CreateIncident(ctx, in, sample.Children); err != nil {
			return added, fmt.Errorf("load sample %s: %w", sample.Key, err)
		}
		added++
	}
	return added, components(ctx, s)
}

// components gives the demo's status page a component for each service its public samples
// name, as the migration that brought components did for existing data, unless someone has set
// components up already.
func components(ctx context.Context, s *models.Store) error {
	existing, err := s.ListComponents(ctx)
	if err != nil || len(existing) > 0 {
		return err
	}
	var names []string
	for _, sample := range Incidents() {
		if sample.Incident.Public {
			names = append(names, sample.Incident.Services...)
		}
	}
	names = models.UniqueNames(names)
	slices.Sort(names)
	for n, name := range names {
		in := models.ComponentInput{Name: name, Position: n + 1, Showcase: true, Services: []string{name}}
		if _, err := s.SaveComponent(ctx, 0, in); err != nil {
			return fmt.Errorf("demo component %s: %w", name, err)
		}
	}
	return nil
}

// Incidents returns the sample incidents' inputs, freshly built so callers may change them.
func Incidents() []Sample {
	return []Sample{canadaGateway(), europeAuthorization(), usDocumentWaves(), usRouter(), platformRefresh()}
}

// at builds an instant in the given zone; seconds are never known in the source reports.
func at(loc *time.Location, year int, month time.Month, day, hour, minute int) *time.Time {
	t := time.Date(year, month, day, hour, minute, 0, 0, loc)
	return &t
}

func utc(year int, month time.Month, day, hour, minute int) *time.Time {
	return at(time.UTC, year, month, day, hour, minute)
}

func date(year int, month time.Month, day int) *time.Time {
	return utc(year, month, day, 0, 0)
}

func children(timeline []models.EventInput, windows []models.WindowInput, followUps []models.FollowUpInput) models.Children {
	return models.Children{Timeline: &timeline, ImpactWindows: &windows, FollowUps: &followUps}
}

// canadaGateway is seed 000: three days of latency nobody's monitors saw.
func canadaGateway() Sample {
	return Sample{
		Key: "seed-000",
		Incident: models.IncidentInput{
			Title:    "Canada: slow responses and timeouts after the gateway cutover",
			Severity: "sev2", Status: "resolved", DetectionMethod: "customer_report",
			Summary: "For about three days, requests to the Canada region were intermittently slow and " +
				"sometimes timed out after all of the region's traffic moved to a new gateway. Error " +
				"monitors stayed quiet because most requests succeeded on retry; customers reported it, " +
				"and moving traffic back to the old gateway ended the impact 51 minutes later.",
			CustomerImpact: "Customers reaching the platform through the Canada gateway saw slow pages " +
				"(Action Center and Orchestrator above all), asset fetches that timed out and the odd " +
				"HTTP 503, on and off from 9 March 16:00 UTC to 12 March 17:45 UTC. Other regions were " +
				"not affected.\n\n" +
				"- Worst stretch: 11 March, 08:00–12:00 UTC. p99 latency near 5 s against a usual " +
				"300 ms; more than 100,000 requests took over 5 s in those four hours.\n" +
				"- Errors never passed 0.2 % of requests, but client-side timeouts turned the slowness " +
				"into failures for users.",
			RootCause: "A new regional gateway, which routes each request to its backend, was being " +
				"rolled out region by region. Canada went from 5 % of traffic in late February to 50 % " +
				"on 5 March and 100 % on 9 March; nothing looked wrong at the lower shares.\n\n" +
				"At full load the gateway added latency that nobody saw. Slow responses crossed " +
				"configured thresholds, requests queued and routing services restarted. Each restart " +
				"came up with an empty cache, so lookups went to slower backends and overran the " +
				"gateway's 5 s timeout; the new instances were marked unhealthy and restarted, still " +
				"cold. The Canada Central cluster ran at its minimum capacity, too small for the old and " +
				"the new instances to overlap. With retries some requests took up to 15 s, and a few " +
				"failed.",
			Trigger: "Switching all Canada traffic to the new gateway on 9 March 2026, the last step of a " +
				"phased rollout. The time of the switch is not given, so the trigger milestone is left " +
				"empty.",
			Detection: "Customer reports, on 12 March at 16:54 UTC: almost three days in.\n\n" +
				"- Requests were slow rather than failing, and most succeeded on retry, so alerts on " +
				"error rates never fired.\n" +
				"- The Canada synthetic checks allowed enough time to absorb 15 s delays and kept " +
				"passing.",
			Response: "Engineers started as soon as the reports came in. At 17:45 UTC, 51 minutes after " +
				"detection, traffic went back to the previous gateway and service was normal again at " +
				"once; the all-clear was posted at 18:28 UTC.",
			Lessons: "- Latency is an outage signal too: alert on it, not only on errors.\n" +
				"- A synthetic check that waits longer than users will hides the problem it is there " +
				"to find.\n" +
				"- Health checks that restart slow but working instances onto cold caches can turn " +
				"slowness into a restart loop.\n" +
				"- A cluster needs headroom before a rollout, not its minimum capacity.",
			TimeZone: "UTC", PostmortemState: "published", Public: true,
			Services: []string{"Orchestrator", "Action Center", "Gateway"},
			Factors:  []string{"health-checks-removed-capacity", "cold-caches", "capacity-headroom", "retry-amplification", "alerting-on-failures-not-latency", "change-error", "timeout-mismatch"},
			Regions:  []string{"Canada"},
			Milestones: models.Milestones{
				StartedAt:   utc(2026, time.March, 9, 16, 0),
				DetectedAt:  utc(2026, time.March, 12, 16, 54),
				MitigatedAt: utc(2026, time.March, 12, 17, 45),
				ResolvedAt:  utc(2026, time.March, 12, 18, 28),
			},
		},
		Children: children(
			[]models.EventInput{
				{At: *utc(2026, time.March, 12, 16, 39), Kind: "status_update", Status: "investigating", Public: true,
					Body: "Looking into reports of slow Orchestrator responses in Canada."},
				{At: *utc(2026, time.March, 12, 17, 33), Kind: "status_update", Status: "investigating", Public: true,
					Body: "Still investigating the Orchestrator slowdown in Canada; the cause is not known yet."},
				{At: *utc(2026, time.March, 12, 17, 55), Kind: "status_update", Status: "investigating", Public: true,
					Body: "Wider than first thought: every service in the Canada region is affected, not only Orchestrator."},
				{At: *utc(2026, time.March, 12, 18, 11), Kind: "status_update", Status: "monitoring", Public: true,
					Body: "Cause found and a fix applied; we are watching the Canada services for stability."},
				{At: *utc(2026, time.March, 12, 18, 18), Kind: "status_update", Status: "monitoring", Public: true,
					Body: "The fix is in place for everyone reaching the platform from Canada; monitoring continues."},
				{At: *utc(2026, time.March, 12, 18, 28), Kind: "status_update", Status: "resolved", Public: true,
					Body: "Services in Canada have recovered. We will keep an eye on them."},
				{At: *utc(2026, time.March, 16, 7, 6), Kind: "note",
					Body: "Postmortem published: a cold-cache restart loop on the new Canada gateway."},
			},
			[]models.WindowInput{
				{StartedAt: *utc(2026, time.March, 9, 16, 0), EndedAt: utc(2026, time.March, 12, 17, 45), Level: "degraded",
					Note:     "Intermittent latency and timeouts for traffic through the Canada gateway.",
					Services: []string{"Orchestrator", "Action Center"}},
				{StartedAt: *utc(2026, time.March, 11, 8, 0), EndedAt: utc(2026, time.March, 11, 12, 0), Level: "partial_outage",
					Note:     "p99 ≈ 5 s against a 300 ms baseline; errors peaked at 0.2 %",
					Services: []string{"Orchestrator", "Action Center", "Gateway"}},
			},
			[]models.FollowUpInput{
				{Title: "Check cache readiness before a routing instance takes traffic", Kind: "prevent", Priority: "p1", Factors: []string{"cold-caches", "health-checks-removed-capacity"},
					Status: "open", Owner: "Gateway team", DueOn: date(2026, time.April, 30),
					Description:  "A new routing instance confirms its cache is reachable before accepting requests, so a restart cannot start a cold-cache loop.",
					Verification: "A restarted instance stays out of rotation until its cache check passes."},
				{Title: "Raise the minimum capacity of the Canada gateway cluster", Kind: "mitigate", Priority: "p1", Factors: []string{"capacity-headroom"}, DoneAt: utc(2026, time.March, 20, 12, 0),
					Status: "done", Owner: "Gateway team",
					Description: "Enough spare capacity for the old and the new instances to overlap while a rollout runs."},
				{Title: "Alert on latency from the Canada synthetic checks", Kind: "detect", Priority: "p1", Factors: []string{"alerting-on-failures-not-latency"},
					Status: "open", Owner: "Observability team", DueOn: date(2026, time.April, 15),
					Description:  "The checks only catch outright failures; a latency threshold would have fired within the first hour.",
					Verification: "A test delay of a few seconds on a Canada endpoint pages the on-call engineer."},
				{Title: "Audit every regional gateway cluster for the same capacity gap", Kind: "process", Priority: "p2",
					Status: "open", DueOn: date(2026, time.May, 29),
					Description: "Find the other regions whose gateway runs at minimum capacity before their rollout."},
				{Title: "Flag bursts of restarts and new replica sets as anomalies", Kind: "detect", Priority: "p2",
					Status: "open", Owner: "Observability team",
					Description: "A restart now and then is normal; many in a short time should be looked at straight away."},
			},
		),
	}
}

// europeAuthorization is seed 001: a client bug multiplied by retries.
func europeAuthorization() Sample {
	return Sample{
		Key: "seed-001",
		Incident: models.IncidentInput{
			Title:    "Europe: several services unreachable after the Authorization Service overloaded",
			Severity: "sev1", Status: "resolved", DetectionMethod: "automated_alert",
			Summary: "On 5 November 2025, from 05:45 to 08:45 UTC, some customers in Europe could not reach " +
				"several services. Duplicate requests from an old desktop client, multiplied by retries, " +
				"overloaded the Authorization Service until its hosts restarted in a loop; adding hosts " +
				"and turning off Tenant Trimming brought it back.",
			CustomerImpact: "Between 05:45 and 08:45 UTC on 5 November 2025, part of the Europe customer " +
				"base lost access, at times, to several services that depend on authorization.",
			RootCause: "An outdated release of the Assistant desktop app had a bug that made it send the " +
				"same request several times to the internal service that manages organisations and " +
				"tenants. That service passed each duplicate on to the Authorization Service, which " +
				"decides which services and tenants a user may see, and a routing component retried " +
				"failed calls on top. One user action became many calls.\n\n" +
				"The Europe Authorization Service hosts went unhealthy within about a minute of each " +
				"other and self-healing restarted them. The restarts set off a retry storm that kept " +
				"CPU high on every host, and dependent services kept failing for the rest of the window.",
			Trigger: "Duplicate requests from an old Assistant desktop version, amplified by retries in " +
				"the request routing layer. When they began to build up is not known.",
			Detection: "High-severity alerts fired within 20 minutes of the start, and the incident was " +
				"declared high severity straight away.",
			Response: "Engineers traced the failures to raised error rates in the Authorization Service, " +
				"then:\n\n" +
				"- added Authorization Service hosts to take the load;\n" +
				"- switched off Tenant Trimming in the affected part of Europe, cutting the calls it " +
				"makes to its dependencies.\n\n" +
				"Service was back to normal at 08:45 UTC.",
			Lessons: "- Automatic retries turn a client bug into an overload; they need limits.\n" +
				"- Restarting every host of a service at once removes the capacity it needs to recover.\n" +
				"- It happened again, with a similar cause, to another group of customers: the " +
				"follow-ups of that later incident carry the long-term fixes.",
			TimeZone: "UTC", PostmortemState: "published", Public: true,
			Services: []string{"Authorization Service", "Organization Service"},
			Factors:  []string{"retry-amplification", "change-error"},
			Regions:  []string{"Europe"},
			Milestones: models.Milestones{
				StartedAt:   utc(2025, time.November, 5, 5, 45),
				DetectedAt:  utc(2025, time.November, 5, 6, 5),
				MitigatedAt: utc(2025, time.November, 5, 8, 45),
				ResolvedAt:  utc(2025, time.November, 5, 8, 45),
			},
		},
		Children: children(
			[]models.EventInput{
				{At: *utc(2025, time.November, 5, 6, 5), Kind: "alert",
					Body: "High-severity alert on failing requests; incident declared."},
			},
			[]models.WindowInput{
				{StartedAt: *utc(2025, time.November, 5, 5, 45), EndedAt: utc(2025, time.November, 5, 8, 45), Level: "partial_outage",
					Note:     "Some Europe customers could not reach services that depend on authorization.",
					Services: []string{"Authorization Service", "Organization Service"}},
			},
			[]models.FollowUpInput{
				{Title: "Add Authorization Service hosts in Europe", Kind: "mitigate", Priority: "p1", Status: "done",
					Factors: []string{"retry-amplification"}, DoneAt: utc(2025, time.November, 5, 8, 45),
					Owner: "Identity team", Description: "Enough hosts to absorb the amplified traffic."},
				{Title: "Turn off Tenant Trimming in the affected part of Europe", Kind: "mitigate", Priority: "p1", Status: "done",
					Owner: "Identity team", Description: "Fewer calls from the Authorization Service to its dependencies."},
				{Title: "Limit retries from the routing layer to the Authorization Service", Kind: "prevent", Priority: "p2", Status: "open",
					Description: "Retries multiplied the duplicate traffic. The long-term actions are tracked on the later incident with the same cause."},
			},
		),
	}
}

// usDocumentWaves is seed 002: three waves before the first alert.
func usDocumentWaves() Sample {
	windowServices := []string{"Document Understanding", "Communications Mining"}
	return Sample{
		Key: "seed-002",
		Incident: models.IncidentInput{
			Title:    "US: document automations slow and failing in three waves",
			Severity: "sev2", Status: "resolved", DetectionMethod: "automated_alert",
			Summary: "On 17 March 2026, workflows using Document Understanding and Communications Mining " +
				"in the US ran slowly or failed with HTTP 503 in three waves from 04:00 UTC. Permission " +
				"checks to the Authorization Service queued for 20–30 s behind one stalled server and " +
				"overran a 15 s timeout; raising the timeout to 60 s at 10:24 UTC stopped the failures.",
			CustomerImpact: "From 04:00 to 10:52 UTC on 17 March 2026, some US customers saw automations " +
				"using Document Understanding or Communications Mining run slowly, return HTTP 503 or " +
				"not finish. The failures came in three waves, starting around 04:00, 07:00 and 09:00 " +
				"UTC; the first two cleared without anyone acting.",
			RootCause: "Document processing asks the Authorization Service whether the user may run an " +
				"automation and gives up after 15 s. During an hourly burst of traffic one " +
				"authorization server stopped answering for about three minutes. Three safeguards " +
				"that should have moved traffic away did not:\n\n" +
				"- the health check that ejects a bad server reacted too slowly;\n" +
				"- automatic failover was off, disabled earlier while fixing an unrelated problem;\n" +
				"- there was no per-server cap on concurrent requests, so retries piled onto the " +
				"struggling one.\n\n" +
				"Checks then waited 20–30 s in the routing layer although the service itself answered " +
				"in well under a second; the 15 s limit expired and customers got 503s and failed " +
				"workflows.",
			Trigger: "A recurring hourly surge of traffic reaching an authorization server that briefly " +
				"stopped responding. Where the surge comes from is still being investigated.",
			Detection: "Alerts on request failures in document processing fired at 07:54 UTC, 3 h 54 min " +
				"after the first wave, which was only found afterwards. The first two waves ended " +
				"before any alert threshold stayed breached long enough, and nothing watched the " +
				"latency between internal services.",
			Response: "- 07:57: scope confirmed as a US slowdown on the permission-check path.\n" +
				"- 09:29: sample traces showed 20–30 s spent in routing against 5.3 ms to 739 ms of " +
				"work in the Authorization Service, which cleared the service itself.\n" +
				"- 09:43: network and infrastructure engineers were brought in on the routing layer.\n" +
				"- 10:24: permission-check timeout raised from 15 s to 60 s; a hotfix was also " +
				"readied.\n" +
				"- 10:52: no failures since the change; resolved.",
			Lessons: "- Alert on latency between internal services, not only on failures at the edge.\n" +
				"- Failover switched off for one problem must not stay off unnoticed.\n" +
				"- Without a per-instance limit, retries land on the instance least able to take them.",
			TimeZone: "UTC", PostmortemState: "published", Public: true,
			Services: []string{"Document Understanding", "Communications Mining", "Authorization Service"},
			Factors:  []string{"retry-amplification", "failover-disabled", "timeout-mismatch", "alerting-on-failures-not-latency"},
			Regions:  []string{"US"},
			Milestones: models.Milestones{
				StartedAt:      utc(2026, time.March, 17, 4, 0),
				DetectedAt:     utc(2026, time.March, 17, 7, 54),
				AcknowledgedAt: utc(2026, time.March, 17, 7, 57),
				MitigatedAt:    utc(2026, time.March, 17, 10, 24),
				ResolvedAt:     utc(2026, time.March, 17, 10, 52),
			},
		},
		Children: children(
			[]models.EventInput{
				{At: *utc(2026, time.March, 17, 7, 54), Kind: "alert",
					Body: "Failure-rate alert in document processing; incident declared."},
				{At: *utc(2026, time.March, 17, 7, 57), Kind: "action",
					Body: "Confirmed a US slowdown with 503s on automations that wait for permission checks."},
				{At: *utc(2026, time.March, 17, 9, 29), Kind: "action",
					Body: "Sample transactions: 20, 30 and 25 s in routing against 5.3 ms, 30 ms and 739 ms in the Authorization Service. Focus moves to routing."},
				{At: *utc(2026, time.March, 17, 9, 43), Kind: "action",
					Body: "Network and infrastructure engineers join to examine the routing layer."},
				{At: *utc(2026, time.March, 17, 10, 24), Kind: "action",
					Body: "Permission-check timeout in document processing raised from 15 s to 60 s; hotfix prepared."},
			},
			[]models.WindowInput{
				{StartedAt: *utc(2026, time.March, 17, 4, 0), EndedAt: utc(2026, time.March, 17, 4, 30), Level: "partial_outage",
					Note:     "First wave, found only afterwards; cleared by itself. The end is an estimate.",
					Services: windowServices},
				{StartedAt: *utc(2026, time.March, 17, 7, 0), EndedAt: utc(2026, time.March, 17, 8, 0), Level: "partial_outage",
					Note:     "Second wave; the 07:54 alert fired during it and it cleared by itself. The end is an estimate.",
					Services: windowServices},
				{StartedAt: *utc(2026, time.March, 17, 9, 0), EndedAt: utc(2026, time.March, 17, 10, 24), Level: "partial_outage",
					Note:     "Third wave, ended by the timeout increase at 10:24.",
					Services: windowServices},
			},
			[]models.FollowUpInput{
				{Title: "Raise the permission-check timeout so routing delays slow requests instead of failing them",
					Kind: "mitigate", Priority: "p1", Status: "done", Owner: "Document Understanding team"},
				{Title: "Benchmark Authorization Service capacity and cap traffic per instance at the routing layer",
					Kind: "prevent", Priority: "p1", Status: "open", Owner: "Identity team", DueOn: date(2026, time.April, 30),
					Verification: "A load test cannot push one instance past its measured limit."},
				{Title: "Tighten routing timeouts for the Authorization Service so requests to a slow instance give up quickly",
					Kind: "mitigate", Priority: "p2", Status: "open", Owner: "Networking team",
					Description: "Traffic should move to a healthy instance instead of queueing on a slow one."},
				{Title: "Add a startup health check to the Authorization Service",
					Kind: "prevent", Priority: "p2", Status: "in_progress", Owner: "Identity team",
					Description: "An instance gets traffic only once it is ready to serve it."},
				{Title: "Find and remove the source of the hourly traffic surges",
					Kind: "process", Priority: "p2", Status: "open", DueOn: date(2026, time.May, 15)},
			},
		),
	}
}

// usRouter is seed 003: no detection time was ever published.
func usRouter() Sample {
	return Sample{
		Key: "seed-003",
		Incident: models.IncidentInput{
			Title:    "US Common Runtime: router capacity loss causes latency and errors",
			Severity: "sev2", Status: "resolved",
			Summary: "From 21:54 to 22:42 UTC on 15 August 2022, apps in the US Common Runtime saw slower " +
				"responses and failed requests. A deploy that upgraded a dependency slowed the " +
				"infrastructure task workers; new routers came up looking unready and were removed " +
				"while serving traffic, leaving too few for the load. Rolling back and adding routers " +
				"by hand restored service.",
			CustomerImpact: "For 48 minutes, 21:54 to 22:42 UTC, requests to US Common Runtime dynos " +
				"were slower and failed more often than normal.",
			RootCause: "A deploy of the application that manages the Common Runtime infrastructure " +
				"upgraded a dependency that brought lock contention and cut task-worker throughput " +
				"sharply. More work than usual was being scheduled and the system did not scale up, " +
				"so its queue grew.\n\n" +
				"New router instances were serving traffic but reported the wrong boot state; they " +
				"failed readiness checks and routine processes deleted them, while misconfigured " +
				"alerts kept the team unaware. The router pool shrank faster than autoscaling " +
				"replaced it, and requests arrived faster than it could route them.",
			Trigger: "A deploy to the Common Runtime infrastructure manager that included a dependency " +
				"upgrade. Its time is not given.",
			Detection: "Engineering was notified once router availability fell, but no time is given, so " +
				"detection is not recorded. Alerts meant to flag routers failing to start were " +
				"misconfigured. The first public notice went out at 22:34 UTC.",
			Response: "Engineers began adding capacity, rolled back the suspect change and scaled the " +
				"public routers up by hand. Impact ended at 22:42 UTC; the incident was posted as " +
				"resolved at 23:16 UTC.",
			Lessons: "- Readiness checks that delete instances already serving traffic can shrink " +
				"capacity in the middle of an incident.\n" +
				"- Scaling defaults should leave headroom for load in a degraded state.\n" +
				"- Alerts on router start-up need testing like any other code.",
			TimeZone: "UTC", PostmortemState: "published", Public: true,
			Services: []string{"Router"},
			Factors:  []string{"health-checks-removed-capacity", "change-error", "capacity-headroom", "configuration-error"},
			Regions:  []string{"US"},
			Milestones: models.Milestones{
				StartedAt:   utc(2022, time.August, 15, 21, 54),
				MitigatedAt: utc(2022, time.August, 15, 22, 42),
				ResolvedAt:  utc(2022, time.August, 15, 23, 16),
			},
		},
		Children: children(
			[]models.EventInput{
				{At: *utc(2022, time.August, 15, 22, 34), Kind: "status_update", Status: "investigating", Public: true,
					Body: "Router availability in the US Common Runtime has been low since about 21:54 UTC; capacity is being added."},
				{At: *utc(2022, time.August, 15, 23, 9), Kind: "status_update", Status: "monitoring", Public: true,
					Body: "Some apps saw higher latency and errors reaching their dynos. The change we suspect has been rolled back; watching for stability."},
				{At: *utc(2022, time.August, 15, 23, 16), Kind: "status_update", Status: "resolved", Public: true,
					Body: "Resolved. The impact ended at 22:42 UTC."},
				{At: *utc(2022, time.September, 23, 20, 22), Kind: "note",
					Body: "Follow-up posted: what happened, how it was contained and what changes next."},
			},
			[]models.WindowInput{
				{StartedAt: *utc(2022, time.August, 15, 21, 54), EndedAt: utc(2022, time.August, 15, 22, 42), Level: "partial_outage",
					Note: "Higher latency and error rates routing requests to dynos.", Services: []string{"Router"}},
			},
			[]models.FollowUpInput{
				{Title: "Stricter deployment process with realistic tests and pre-rollout checks",
					Kind: "process", Priority: "p1", Status: "done"},
				{Title: "Raise default scaling parameters to keep headroom in a degraded state",
					Kind: "prevent", Priority: "p1", Status: "done"},
				{Title: "Add alertable metrics so a bad change is caught and reverted sooner",
					Kind: "detect", Priority: "p2", Status: "done",
					Description: "Includes alerts on routers that fail to start correctly."},
			},
		),
	}
}

// platformRefresh is seed 004: a change that waited four days to bite, entered in UK time.
func platformRefresh() Sample {
	// British Summer Time: a fixed offset keeps the sample independent of the zone database.
	bst := time.FixedZone("BST", 60*60)
	tools := []string{"Fast Feedback", "Discover", "ProComms Desktop", "User Management"}
	return Sample{
		Key: "seed-004",
		Incident: models.IncidentInput{
			Title:    "Platform-wide slowness and timeouts for 32.5 hours",
			Severity: "sev1", Status: "resolved",
			Summary: "From 08:00 BST on 5 April 2022 until 16:30 BST the next day, every tool on the " +
				"feedback platform was intermittently slow or timed out, worst in UK business hours. A " +
				"dashboard auto-refresh meant for one customer had been deployed to all of them on 1 " +
				"April; the refresh traffic outgrew capacity, and health checks pulled slow machines " +
				"out of rotation, which made it worse.",
			CustomerImpact: "Fast Feedback, Discover, ProComms Desktop and User Management all suffered: " +
				"timeouts, very slow navigation, and widgets and tables that never finished loading, " +
				"worst at UK peak hours.\n\n" +
				"- Many API calls timed out and never arrived, so the surveys they should have " +
				"triggered were not sent; customers had to resend them once the platform recovered.\n" +
				"- Scheduled survey emails were sent on time; SMS workflows ran a little late " +
				"but completed.\n" +
				"- No data was lost.",
			RootCause: "On 1 April a change to refresh one customer's dashboard every two minutes was, " +
				"by human error, switched on for every customer. Dashboard refresh traffic is normally " +
				"steady and has 50–100 % spare capacity; by 5 April the extra refreshes had used it " +
				"up.\n\n" +
				"Health checks then made it worse: they flag a slow machine as sick and pull it from " +
				"service, so machines that could still work, slowly, were removed. Rolling the " +
				"code back did not undo the refresh settings stored per user in the database, so the " +
				"deploy looked unrelated and the investigation took longer.",
			Trigger: "The dashboard auto-refresh deploy of 1 April 2022. The report gives the day, not " +
				"the hour: the 09:00 BST trigger time recorded here is an estimate, so the latent " +
				"period of about four days is approximate.",
			Detection: "The report does not say how or when the problem was first noticed, so the " +
				"detection method and time are not recorded.",
			Response: "The change was rolled back early, but the per-user refresh settings stayed in " +
				"the database and kept the load up. Around 16:30 BST on 6 April engineers deployed " +
				"several infrastructure changes; performance recovered and no more timeouts or " +
				"slowness were reported.",
			Lessons: "- Rolling back the code is not rolling back a change that also wrote data.\n" +
				"- Health checks should be able to keep slow but working machines in rotation.\n" +
				"- A feature meant for one customer needs a scoped rollout: this mistake reached " +
				"everyone.",
			TimeZone: "Europe/London", PostmortemState: "published", Public: true,
			Services: tools,
			Factors:  []string{"health-checks-removed-capacity", "change-error", "capacity-headroom"},
			Regions:  []string{"UK"},
			Milestones: models.Milestones{
				TriggeredAt: at(bst, 2022, time.April, 1, 9, 0), // estimated hour, as the trigger text says
				StartedAt:   at(bst, 2022, time.April, 5, 8, 0),
				MitigatedAt: at(bst, 2022, time.April, 6, 16, 30),
				ResolvedAt:  at(bst, 2022, time.April, 6, 16, 30),
			},
		},
		Children: children(
			[]models.EventInput{
				{At: *at(bst, 2022, time.April, 1, 9, 0), Kind: "change",
					Body: "Dashboard auto-refresh deployed to every customer instead of one. The hour is an estimate; only the date is known."},
				{At: *at(bst, 2022, time.April, 6, 16, 30), Kind: "action",
					Body: "Several infrastructure changes deployed; performance recovers."},
			},
			[]models.WindowInput{
				{StartedAt: *at(bst, 2022, time.April, 5, 8, 0), EndedAt: at(bst, 2022, time.April, 6, 16, 30), Level: "partial_outage",
					Note:     "Intermittent timeouts and slowness in every tool, worst in UK business hours; many API calls failed.",
					Services: tools},
			},
			[]models.FollowUpInput{
				{Title: "Remove the dashboard auto-refresh feature", Kind: "prevent", Priority: "p1", Status: "done",
					Description: "It may return later as an opt-in feature with a controlled rollout."},
				{Title: "Give operators control over when health checks remove slow machines", Kind: "mitigate", Priority: "p1", Status: "done",
					Factors: []string{"health-checks-removed-capacity"}, DoneAt: utc(2022, time.June, 14, 9, 45),
					Description: "Slow but working machines can be kept in rotation."},
				{Title: "Add monitoring that ties a traffic spike to the process causing it", Kind: "detect", Priority: "p2", Status: "done"},
				{Title: "Make it quicker to add capacity when it is needed", Kind: "process", Priority: "p3", Status: "in_progress",
					Description: "No extra capacity is needed now, but adding it should not take long."},
				{Title: "Capture timed-out API calls so they can be replayed", Kind: "mitigate", Priority: "p3", Status: "wont_do",
					Description: "Not planned: the health-check and monitoring changes should stop calls timing out."},
			},
		),
	}
}
