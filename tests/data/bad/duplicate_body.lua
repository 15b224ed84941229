-- expect: 6: duplicate body name 'link1' (first defined at line 4)
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.bodies, { name = "link1", mass = 1.0, sphere = 0.1, pos = { 0, 0, -1 } })
return m
