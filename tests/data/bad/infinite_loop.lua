-- expect: 8: mechanism did not finish within
-- limit: 1000000
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
local n = 0
while n >= 0 do n = n + 1 end
return m
