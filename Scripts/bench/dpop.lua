-- wrk script: each request carries the session token as `Authorization: DPoP` and the next
-- pre-signed proof of Scripts/bench/proofs.py (PROOFS: the file; TOKEN: the session token). The
-- proofs are split between wrk's threads, so none is sent twice (a replay would be refused).
local threads, count = {}, 0

function setup(thread)
  thread:set("index", count)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  proofs, next_proof = {}, 1
  local line_number = 0
  for line in io.lines(os.getenv("PROOFS")) do
    if line_number % tonumber(os.getenv("THREADS") or 2) == index then table.insert(proofs, line) end
    line_number = line_number + 1
  end
  authorization = "DPoP " .. os.getenv("TOKEN")
end

function request()
  local proof = proofs[next_proof]
  if proof == nil then proof = "exhausted" end
  next_proof = next_proof + 1
  return wrk.format(nil, nil, { ["DPoP"] = proof, ["Authorization"] = authorization,
                                ["X-Application-Signature"] = "3F2504E0-4F89-11D3-9A0C-0305E82C3301" })
end

function done(summary, latency, requests)
  local failed = summary.errors.status
  if failed > 0 then io.stderr:write(string.format("%d answers were not 2xx (proofs exhausted?)\n", failed)) end
end
