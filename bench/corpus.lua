-- bench/corpus.lua — wrk script for bench/run.sh: replays a corpus written by
-- `test_load --write-corpus` (fixed-length records, see tests/support/load_main.cpp),
-- in order, each wrk thread its own contiguous slice, never wrapping around.
--
-- env (all set by bench/run.sh):
--   CORPUS=FILE        the corpus (it holds signatures and bodies: never printed)
--   TARGET=hookinbox   X-Timestamp + X-Signature (the init demo endpoint), or
--   TARGET=webhook     X-Hub-Signature-256 (adnanh/webhook's payload-hmac-sha256 rule)
--   WRK_THREADS=N      must equal wrk -t: the corpus is cut into N slices
--   CONN_CLOSE=1       "Connection: close" on every request: a new TLS connection each
--   ACKS=FILE          define response(): count 2xx/other answers in Lua and, for
--                      hookinbox, write one line "INBOX_ID OUTCOME" per 2xx answer to
--                      FILE, so run.sh can check each acknowledged delivery in the db.
--                      Unset: no response() (wrk then skips parsing bodies), counts only.
--
-- done() prints one line "CORPUS k=v ...": wrk's requests/errors/duration, the
-- latency p50/p99/max (µs), how many records each thread took (sent_N), the 2xx
-- and other answers counted here (with ACKS), and exhausted=1 when a thread ran
-- out of its slice (it then stopped: run.sh fails such a run; raise CORPUS_RATE).

local corpus = os.getenv("CORPUS")
local target = os.getenv("TARGET") or "hookinbox"
local nthreads = tonumber(os.getenv("WRK_THREADS") or "1")
local close = os.getenv("CONN_CLOSE") == "1"
local acks_path = os.getenv("ACKS")

-- Record layout (offsets are 1-based, inclusive): TIMESTAMP(10) \t SIG(64) \t HUB_SIG(64) \t EVENT(10) \t BODY \n
local TS, SIG, HUB, BODY = {1, 10}, {12, 75}, {77, 140}, 153

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("tid", #threads - 1)
end

-- Per-thread state (each wrk thread has its own Lua state); globals so done() can read them.
local f, reclen
first, last, pos, exhausted, n2xx, nother = 0, 0, 0, 0, 0, 0
acks = {}
local prefix, last_request

function init(args)
  f = assert(io.open(corpus, "rb"))
  reclen = #f:read("*l") + 1
  local total = math.floor(f:seek("end") / reclen)
  local per = math.floor(total / nthreads)
  first = tid * per
  last = first + per
  pos = first
  f:seek("set", first * reclen)
  local path = wrk.path
  prefix = "POST " .. path .. " HTTP/1.1\r\nHost: " .. wrk.host .. ":" .. tostring(wrk.port) ..
           "\r\nContent-Type: application/json\r\nUser-Agent: hookinbox-bench\r\n" ..
           (close and "Connection: close\r\n" or "")
end

function request()
  if pos >= last then
    -- Never wrap around (a resent record would be a duplicate the corpus did not
    -- plan): stop this thread and resend the last request once more.
    exhausted = 1
    wrk.thread:stop()
    return last_request
  end
  local line = f:read("*l")
  pos = pos + 1
  local body = line:sub(BODY)
  local sig
  if target == "webhook" then
    sig = "X-Hub-Signature-256: sha256=" .. line:sub(HUB[1], HUB[2]) .. "\r\n"
  else
    sig = "X-Timestamp: " .. line:sub(TS[1], TS[2]) .. "\r\nX-Signature: sha256=" .. line:sub(SIG[1], SIG[2]) .. "\r\n"
  end
  last_request = prefix .. "Content-Length: " .. #body .. "\r\n" .. sig .. "\r\n" .. body
  return last_request
end

if acks_path then
  function response(status, headers, body)
    if status >= 200 and status < 300 then
      n2xx = n2xx + 1
      if target == "hookinbox" then
        -- {"status":"accepted|duplicate|conflict","id":N,...} (src/http/receive.cpp ClaimReply)
        acks[#acks + 1] = (body:match('"id":(%d+)') or "0") .. " " .. (body:match('"status":"(%a+)"') or "none")
      end
    else
      nother = nother + 1
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local out = {
    "CORPUS target=" .. target,
    "requests=" .. summary.requests,
    "duration_us=" .. summary.duration,
    "err_connect=" .. e.connect, "err_read=" .. e.read, "err_write=" .. e.write,
    "err_status=" .. e.status, "err_timeout=" .. e.timeout,
    "p50_us=" .. latency:percentile(50), "p99_us=" .. latency:percentile(99), "max_us=" .. latency.max,
  }
  local ok, other, ex = 0, 0, 0
  local fa = acks_path and target == "hookinbox" and assert(io.open(acks_path, "w")) or nil
  for i, t in ipairs(threads) do
    -- sent_N: records thread N took, from its slice start first_N (record index)
    out[#out + 1] = "first_" .. (i - 1) .. "=" .. t:get("first")
    out[#out + 1] = "sent_" .. (i - 1) .. "=" .. (t:get("pos") - t:get("first"))
    ok = ok + t:get("n2xx")
    other = other + t:get("nother")
    ex = math.max(ex, t:get("exhausted"))
    if fa then
      for _, line in ipairs(t:get("acks")) do fa:write(line, "\n") end
    end
  end
  if fa then fa:close() end
  out[#out + 1] = "exhausted=" .. ex
  if acks_path then
    out[#out + 1] = "lua_2xx=" .. ok
    out[#out + 1] = "lua_other=" .. other
  end
  print(table.concat(out, " "))
end
