-- Reads through the API: a quarter the incident list, the rest one of the first 200 incidents.
math.randomseed(os.time())
request = function()
  local path = "/api/v1/incidents"
  if math.random(4) > 1 then path = path .. "/" .. math.random(200) end
  return wrk.format("GET", path, {["Authorization"] = "Bearer " .. os.getenv("HS_TOKEN")})
end
