-- expect: 6: rank 0 < degree 1 (a rod of zero length)
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.constraints, { name = "strut", type = "rod", a = "link1", b = "link2",
                     anchor_a = { 0, 0, -0.5 }, anchor_b = { 0, 0, -0.5 } })
return m
