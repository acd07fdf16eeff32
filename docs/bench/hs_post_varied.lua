-- Varied incidents: titles of three words from a vocabulary of 60, one of 12 services.
local words = {"checkout","latency","deploy","database","failover","cache","timeout","queue","backlog","dns","certificate","expired","login","errors","search","index","replication","lag","disk","full","memory","leak","kafka","consumer","rollout","canary","config","push","rate","limit","gateway","502","storage","quota","billing","webhook","retries","storm","cron","missed","email","delay","payments","declined","mobile","crash","api","slow","region","outage","network","partition","load","balancer","tls","handshake","build","pipeline","token","revoked"}
local services = {"Checkout","Search","Billing","Auth","Mail","Payments","Mobile","API","Storage","Network","Build","Queue"}
math.randomseed(os.time())
request = function()
  local t = words[math.random(#words)] .. " " .. words[math.random(#words)] .. " " .. words[math.random(#words)]
  local body = '{"title": "' .. t .. '", "severity": "sev3", "status": "investigating", "time_zone": "UTC", "started_at": "2026-11-30T06:00:00Z", "services": ["' .. services[math.random(#services)] .. '"]}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("HS_TOKEN")}, body)
end
