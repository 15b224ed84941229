-- expect: 6: constraint 'cross' is degenerate at the initial pose: its Jacobian has rank 3 < degree 4
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.constraints, { name = "cross", type = "universal", a = "link1", b = "link2",
                     anchor = { 0, 0, -0.5 }, axis_a = { 1, 0, 0 }, axis_b = { -1, 0, 0 } })
return m
