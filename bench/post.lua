-- wrk script: POST /user with a unique e-mail per request (per thread id and counter).
local counter = 0
local threads = {}
local id = 0

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
end

request = function()
  counter = counter + 1
  local body = string.format('{"name":"Load %d","email":"load-%s-%d-%d@example.com","age":30}', counter, tid or 0, counter, math.random(1, 1000000000))
  return wrk.format("POST", "/user", {["Content-Type"] = "application/json"}, body)
end
