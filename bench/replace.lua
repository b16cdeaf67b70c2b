-- wrk script: PUT /tag/1/pets with 10 ids, alternating between two sets so every request
-- really replaces all ten members.
local counter = 0
request = function()
  counter = counter + 1
  local body = "[1,2,3,4,5,6,7,8,9,10]"
  if counter % 2 == 0 then body = "[11,12,13,14,15,16,17,18,19,20]" end
  return wrk.format("PUT", "/tag/1/pets", {["Content-Type"] = "application/json"}, body)
end
