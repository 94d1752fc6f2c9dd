-- wrk script: each request carries the session token as `Authorization: DPoP` and the next
-- pre-signed proof of Scripts/bench/proofs.py (PROOFS: the file; TOKEN: the session token). The
-- proofs are split between wrk's threads, so none is sent twice (a replay would be refused).
-- Each request is formatted in init(), before the run, like the proofs were signed before it: the
-- generator then spends as little per request as it does on /health (it shares the machine's cores
-- with the server, so its own work would otherwise count against the path it measures).
local threads, count = {}, 0

function setup(thread)
  thread:set("index", count)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  requests, next_request = {}, 1
  local line_number = 0
  local authorization = "DPoP " .. os.getenv("TOKEN")
  for line in io.lines(os.getenv("PROOFS")) do
    if line_number % tonumber(os.getenv("THREADS") or 2) == index then
      table.insert(requests, wrk.format(nil, nil, { ["DPoP"] = line, ["Authorization"] = authorization,
                                                     ["X-Application-Signature"] = "3F2504E0-4F89-11D3-9A0C-0305E82C3301" }))
    end
    line_number = line_number + 1
  end
  exhausted = wrk.format(nil, nil, { ["DPoP"] = "exhausted" })
end

function request()
  local request = requests[next_request] or exhausted
  next_request = next_request + 1
  return request
end

function done(summary, latency, requests)
  local failed = summary.errors.status
  if failed > 0 then io.stderr:write(string.format("%d answers were not 2xx (proofs exhausted?)\n", failed)) end
end
