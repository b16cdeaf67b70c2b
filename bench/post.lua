-- wrk script: POST /user with a unique e-mail per request. Uniqueness comes from the
-- run's nonce (first script argument), the thread number and a per-thread counter.
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  nonce = args[1] or tostring(os.time())
  counter = 0
end

request = function()
  counter = counter + 1
  local body = string.format('{"name":"Load %d","email":"load-%s-%d-%d@example.com","age":30}', counter, nonce, tid, counter)
  return wrk.format("POST", "/user", {["Content-Type"] = "application/json"}, body)
end
