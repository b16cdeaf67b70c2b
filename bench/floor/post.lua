-- wrk script: POST /pet, owners 1 to 100 in turn; the run's nonce (first script argument)
-- and a per-thread counter name the pets.
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
  local body = string.format('{"name":"Pet %s-%d-%d","owner":%d}', nonce, tid, counter, counter % 100 + 1)
  return wrk.format("POST", "/pet", {["Content-Type"] = "application/json"}, body)
end
