-- one body per equality type, each hinged on by its constraint, plus every inequality type
local m = { name = "every_type", bodies = {}, constraints = {},
            settings = { gravity = { 0, 0, -9.81 }, dt = 0.01, iterations = 8, epsilon = 1e-6, beta = 0.2,
                         shatter = 12, ground = { height = -3, friction = 0.5 }, friction = 0.7,
                         collide = true, max_contacts = 64, stabilize = true } }
local function add(t, x) t[#t + 1] = x; return x end
local types = { "ball", "hinge", "rod", "prismatic", "cylindrical", "universal", "weld" }
for i, ty in ipairs(types) do
  local b = add(m.bodies, { name = "b" .. i, mass = i, box = { 0.2, 0.3, 0.4 }, pos = { i, 0, 0 },
                            rot = { 1, 0, 0, 0 }, vel = { 0, 0, 0 }, angvel = { 0, 0, 0.1 },
                            shape = { box = { 0.2, 0.3, 0.4 } }, friction = 0.3 })
  local c = { name = ty, type = ty, a = i == 1 and "world" or "b" .. (i - 1), b = b.name }
  if ty == "rod" then c.anchor_a = { i - 0.5, 0, 0.5 }; c.anchor_b = { i, 0, 0 }
  else c.anchor = { i - 0.5, 0, 0 } end
  if ty == "hinge" or ty == "prismatic" or ty == "cylindrical" then c.axis = { 0, 1, 0 } end
  if ty == "universal" then c.axis_a = { 0, 1, 0 }; c.axis_b = { 0, 0, 1 } end
  add(m.constraints, c)
end
add(m.constraints, { name = "lim", type = "angular_limit", hinge = "hinge", lower = -1, upper = 1 })
add(m.constraints, { name = "plim", type = "positional_limit", joint = "prismatic", lower = -0.1, upper = 0.1 })
add(m.constraints, { name = "rope", type = "rope", a = "b1", b = "b7", anchor_a = { 1, 0, 0 }, anchor_b = { 7, 0, 0 } })
add(m.constraints, { name = "mot", type = "motor", joint = "cylindrical", speed = 1, max_force = 10 })
return m
