-- rover.lua: a four-wheeled rover for the example game: a chassis on four
-- wheels (cylinder shapes on hinges) with a motor each, on a ground plane.
-- z is up, SI units; it points along +x.
local m = { name = "rover", bodies = {}, constraints = {},
            settings = { ground = { height = 0, friction = 1.0 } } }
local function add(t, x) t[#t + 1] = x; return x end

local r = 0.3                                                 -- wheel radius
local wheel_rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }   -- cylinder z onto y
add(m.bodies, { name = "chassis", mass = 150, box = { 1.6, 1.0, 0.3 }, pos = { 0, 0, 0.5 },
                shape = { box = { 1.6, 1.0, 0.3 } } })
for _, w in ipairs({ { "FL", 0.6, 0.65 }, { "FR", 0.6, -0.65 }, { "RL", -0.6, 0.65 }, { "RR", -0.6, -0.65 } }) do
  local name, x, y = w[1], w[2], w[3]
  add(m.bodies, { name = "wheel_" .. name, mass = 10, cylinder = { r, 0.2 }, shape = { cylinder = { r, 0.2 } },
                  pos = { x, y, r }, rot = wheel_rot })
  add(m.constraints, { name = "axle_" .. name, type = "hinge", a = "chassis", b = "wheel_" .. name,
                       anchor = { x, y, r }, axis = { 0, 1, 0 } })
  add(m.constraints, { name = "drive_" .. name, type = "motor", joint = "axle_" .. name, speed = 0,
                       max_force = 150 })
end
return m
