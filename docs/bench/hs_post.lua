wrk.method = "POST"
wrk.body = '{"title": "Checkout latency after deploy", "severity": "sev3", "status": "investigating", "time_zone": "UTC", "started_at": "2026-11-30T06:00:00Z", "services": ["Checkout"]}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("HS_TOKEN")
