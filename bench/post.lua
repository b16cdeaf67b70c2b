-- wrk script: POST /product with a unique sku per request. Uniqueness comes from the
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
  local body = string.format('{"name":"Item %d","sku":"sku-%s-%d-%d","price":9.5,"stock":3}', counter, nonce, tid, counter)
  return wrk.format("POST", "/product", {["Content-Type"] = "application/json"}, body)
end
