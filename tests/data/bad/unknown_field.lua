-- expect: 6: body 'link3': unknown field 'colour'
local m = { name = "bad", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "link1", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.bodies, { name = "link2", mass = 1.0, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.75 } })
add(m.bodies, { name = "link3", mass = 1.0, sphere = 0.1, pos = { 0, 0, -1 }, colour = "red" })
return m
