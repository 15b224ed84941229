-- expect: 6: unknown body 'link3'
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.constraints, { name = "shoulder", type = "hinge", a = "world", b = "link3",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
return m
