-- expect: 6: field 'hinge' names unknown constraint 'elbow'
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.constraints, { name = "elbow_limit", type = "angular_limit", hinge = "elbow",
                     lower = -1.0, upper = 1.0 })
return m
