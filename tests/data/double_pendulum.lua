-- z is up; gravity defaults to (0, 0, -9.81); SI units; anchors and axes in world frame
local m = { name = "double_pendulum", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
for i = 1, 2 do
  add(m.bodies, { name = "link" .. i, mass = 1.0, box = { 0.05, 0.05, 0.5 },
                  pos = { 0, 0, -0.25 - 0.5 * (i - 1) } })
end
add(m.constraints, { name = "shoulder", type = "hinge", a = "world", b = "link1",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "elbow", type = "hinge", a = "link1", b = "link2",
                     anchor = { 0, 0, -0.5 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "elbow_limit", type = "angular_limit", hinge = "elbow",
                     lower = -1.0, upper = 1.0 })
return m
