-- wrk script: POST each prepared body once, then stop.
--
-- BODIES names a file of lines "<x-authenticity-token or -> <body>". Thread n
-- of THREADS takes lines n, n + THREADS...; once its share is answered it
-- leaves a file named n in DONE_DIR (once its share is sent, its connections
-- GET the path instead, a 405 left out of the counts). wrk itself runs until its -d
-- duration: the benchmark interrupts it (SIGINT) when every thread is done,
-- and wrk's summary then covers the real run. done() prints one JSON line
-- the benchmark reads.

local threads = {}
local counter = 0

function setup(thread)
   thread:set("id", counter)
   table.insert(threads, thread)
   counter = counter + 1
end

function init(args)
   local file = os.getenv("BODIES")
   local nthreads = tonumber(os.getenv("THREADS"))
   local path = os.getenv("TARGET_PATH")
   requests_out = {}
   local index = 0
   for line in io.lines(file) do
      if index % nthreads == id then
         local space = line:find(" ", 1, true)
         local token = line:sub(1, space - 1)
         local body = line:sub(space + 1)
         local headers = {["Content-Type"] = "application/json"}
         if token ~= "-" then
            headers["x-authenticity-token"] = token
         end
         table.insert(requests_out, wrk.format("POST", path, headers, body))
      end
      index = index + 1
   end
   -- wrk calls request() once on the first thread before the run, to check what it
   -- returns: that call gets a GET (405, not counted), as every thread's first does.
   requests_out[0] = wrk.format("GET", path)
   next_request = 0
   answered = 0
   statuses = {}
end

function request()
   local chosen = requests_out[next_request]
   if chosen == nil then
      -- Every body was sent and the thread waits for the last answers: its other
      -- connections ask for something else, a GET (405), which is not counted.
      return wrk.format("GET", os.getenv("TARGET_PATH"))
   end
   next_request = next_request + 1
   return chosen
end

function response(status, headers, body)
   if status == 405 then
      return
   end
   answered = answered + 1
   statuses[status] = (statuses[status] or 0) + 1
   if answered == #requests_out then
      -- Not wrk.thread:stop(): a stopped thread leaves its connections open, and a
      -- gunicorn sync worker that accepted one waits on it until its timeout.
      local marker = io.open(os.getenv("DONE_DIR") .. "/" .. id, "w")
      marker:close()
   end
end

function done(summary, latency, requests)
   local codes = {}
   local answered_all = 0
   for _, thread in ipairs(threads) do
      answered_all = answered_all + thread:get("answered")
      local seen = thread:get("statuses")
      for code, count in pairs(seen) do
         codes[#codes + 1] = string.format("[%d, %d]", code, count)
      end
   end
   io.write(string.format(
      'WRK_RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, '
         .. '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, '
         .. '"statuses": [%s]}\n',
      answered_all, summary.duration, latency:percentile(50), latency:percentile(99),
      summary.errors.connect, summary.errors.read, summary.errors.write,
      summary.errors.status, summary.errors.timeout, table.concat(codes, ", ")))
end
