-- multi_wheel.lua: the talk's multi-wheeled vehicle. A 7-axle heavy
-- transporter whose chassis carries every constraint of the mechanism:
-- 14 wheels on hinges, 4 outrigger pads and 2 tow arms on ball joints --
-- 20 constraints, dim 88, and a 100% dense H (every pair of constraints
-- shares the chassis). Shattering the chassis into welded shards makes it
-- sparse (the talk: 29 constraints, dim 142, ~17.5%, ~35k flops).
-- z is up, SI units; the vehicle points along +x.

-- The wheels (cylinder shapes) stand on a ground plane at z = 0.
local m = { name = "multi_wheel", bodies = {}, constraints = {},
            settings = { ground = { height = 0 }, probe = "chassis" } }
local function add(t, x) t[#t + 1] = x; return x end

local axles, spacing = 7, 1.4
local track_half = 1.4           -- wheel centre y
local wheel_r = 0.5
local chassis_z = 1.2
-- cylinder axis is body z; turn it onto y (rotation of -90 degrees about x)
local wheel_rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }

add(m.bodies, { name = "chassis", mass = 12000, box = { 10.0, 2.5, 1.0 },
                pos = { 0, 0, chassis_z } })

local function wheel(i, side, y)
  local x = -(axles - 1) * spacing / 2 + (i - 1) * spacing
  local name = string.format("wheel%d%s", i, side)
  add(m.bodies, { name = name, mass = 150, cylinder = { wheel_r, 0.4 }, shape = { cylinder = { wheel_r, 0.4 } },
                  pos = { x, y, wheel_r }, rot = wheel_rot })
  add(m.constraints, { name = "axle" .. i .. side, type = "hinge", a = "chassis", b = name,
                       anchor = { x, y, wheel_r }, axis = { 0, 1, 0 } })
end

local function hanging(name, mass, size, x, y, top_z)
  add(m.bodies, { name = name, mass = mass, box = size,
                  pos = { x, y, top_z - size[3] / 2 } })
  add(m.constraints, { name = name .. "_ball", type = "ball", a = "chassis", b = name,
                       anchor = { x, y, top_z } })
end

-- constraints in front-to-back order, so the shards of a shattered chassis
-- each carry neighbouring wheels
hanging("tow_front", 80, { 1.2, 0.1, 0.1 }, 5.6, 0, chassis_z)
for i = 1, axles do
  wheel(i, "L", track_half)
  wheel(i, "R", -track_half)
  if i == 2 or i == 6 then
    local tag = i == 2 and "front" or "rear"
    hanging("outrigger_" .. tag .. "L", 60, { 0.4, 0.4, 0.3 }, -(axles - 1) * spacing / 2 + (i - 1) * spacing + 0.7, 1.25, chassis_z - 0.5)
    hanging("outrigger_" .. tag .. "R", 60, { 0.4, 0.4, 0.3 }, -(axles - 1) * spacing / 2 + (i - 1) * spacing + 0.7, -1.25, chassis_z - 0.5)
  end
end
hanging("tow_rear", 80, { 1.2, 0.1, 0.1 }, -5.6, 0, chassis_z)

return m
