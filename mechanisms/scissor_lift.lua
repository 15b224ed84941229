-- scissor_lift.lua: the talk's scissor lift on a platform with wheels. A
-- wheeled chassis carries a 7-stage scissor stack that holds up an 800 kg
-- work platform; a hydraulic cylinder between the chassis and the lowest
-- inner frame raises it. At the modelled pose the lift is partly raised:
-- every arm stands at 30 degrees, the platform about 6.5 m up.
--
-- Scissor: every stage is an inner frame (rising towards +x) crossed with an
-- outer frame (rising towards -x) at a centre pivot; a frame's upper ends are
-- pinned to the next stage's lower ends (the knees). Each frame is a
-- weldment of two bodies: the left side arm, which carries the frame's three
-- pin bosses, and the cross member -- the pivot cross tube with the right
-- side arm -- welded to it. A pin runs through both sides of the lift, so
-- each pin line is one hinge (axis y), anchored on the left arms; a second
-- hinge on the right arms would only repeat it. The frame bodies weigh 20 kg
-- (side arm) and 28 kg (cross member); the platform weighs 800 kg.
-- The fixed ends of the stack are pinned to the chassis (foot) and under the
-- platform (head); the sliding ends ride on roller shafts: a slider
-- (prismatic along x) on the chassis or under the platform, pinned to the
-- arm end (the upper roller may also turn about its slide: cylindrical).
-- The cylinder's barrel and rod slide along their common axis and hang on
-- ball joints (spherical rod eyes) at both ends; the oil column between the
-- eyes is a driven rod, a linear actuator that extends at 3 cm/s up to its
-- stroke. Four wheels turn on hinges on the chassis and stand on a ground
-- plane at z = 0 (cylinder collision shapes).
--
-- 47 constraints: 27 hinges, 14 welds, 2 prismatic, 1 cylindrical, 2 balls,
-- 1 rod, dim 240. The chassis carries 33 degrees (> 20); the compiler
-- shatters it into two welded shards (wheels | foot, roller, cylinder), so
-- the solver sees 48 constraints. Measured with the default options (--order
-- best, shatter 20): dim 246, density 11.5%, 88,156 flops (the talk: dim 246,
-- 12%, ~90k).
-- z is up, SI units; the lift points along +x.

local m = { name = "scissor_lift", bodies = {}, constraints = {},
            settings = { ground = { height = 0 }, probe = "platform" } }
local function add(t, x) t[#t + 1] = x; return x end
local function roty(phi) return { math.cos(phi / 2), 0, math.sin(phi / 2), 0 } end  -- about y
local along_y = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }  -- a cylinder's axis (body z) onto y
local Y = { 0, 1, 0 }

local stages = STAGES or 7         -- STAGES: set by `make bench` for its scaling series
local L = 1.6                              -- pin-to-pin length of an arm
local theta = math.rad(30)                 -- arm angle at the modelled pose
local s, h = L * math.cos(theta), L * math.sin(theta)  -- span and rise of a stage
local wheel_r = 0.25
local chassis_z, chassis_h = 0.40, 0.3
local z0 = chassis_z + chassis_h / 2 + 0.1 -- bottom pin line, on brackets on the chassis
local z_top = z0 + stages * h              -- top pin line, under the platform
local x0 = -s / 2                          -- fixed ends at x0, sliding ends at x0 + s
local y_in, y_out = 0.42, 0.50             -- side arms of the inner and outer frames
local y_pin = (y_in + y_out) / 2           -- pin anchors, between an inner and an outer arm

-- point at fraction f along frame k's arm (0 = lower end, 1 = upper end), at y
local function arm_point(inner, k, f, y)
  local zk = z0 + k * h
  if inner then return { x0 + f * s, y, zk + f * h } end
  return { x0 + s - f * s, y, zk + f * h }
end

---- bodies ------------------------------------------------------------------------

add(m.bodies, { name = "chassis", mass = 1200, box = { 2.6, 1.2, chassis_h }, pos = { 0, 0, chassis_z } })
local wheels = { { "FL", 1.0, 0.72 }, { "FR", 1.0, -0.72 }, { "RL", -1.0, 0.72 }, { "RR", -1.0, -0.72 } }
for _, w in ipairs(wheels) do
  add(m.bodies, { name = "wheel" .. w[1], mass = 30, cylinder = { wheel_r, 0.18 },
                  shape = { cylinder = { wheel_r, 0.18 } }, pos = { w[2], w[3], wheel_r }, rot = along_y })
end

-- a frame: side arm (box, 20 kg) at +y, cross member (8 kg tube at the pivot,
-- from -y to +y, plus a 20 kg side arm at -y) with its principal inertia
local arm_len, arm_mass, tube_mass, tube_r = L + 0.12, 20, 8, 0.04
local function cross_member(y)
  local mass = arm_mass + tube_mass
  local c = -arm_mass * y / mass            -- centre of mass (body y, = world y)
  local da, dt = -y - c, -c                 -- side arm and tube offsets from it
  local arm_yy = arm_mass * (arm_len ^ 2 + 0.12 ^ 2) / 12
  local tube_perp = tube_mass * (3 * tube_r ^ 2 + (2 * y) ^ 2) / 12 + tube_mass * dt ^ 2
  local ix = arm_mass * (0.05 ^ 2 + 0.12 ^ 2) / 12 + arm_mass * da ^ 2 + tube_perp
  local iz = arm_mass * (arm_len ^ 2 + 0.05 ^ 2) / 12 + arm_mass * da ^ 2 + tube_perp
  return mass, c, { ix, arm_yy + tube_mass * tube_r ^ 2 / 2, iz }
end

local function frame_name(inner, k) return (inner and "inner" or "outer") .. k end
for k = 0, stages - 1 do
  for _, inner in ipairs({ true, false }) do
    local y = inner and y_in or y_out
    local rot = roty(inner and -theta or theta)   -- body x along the arm
    local mass, c, inertia = cross_member(y)
    add(m.bodies, { name = frame_name(inner, k), mass = arm_mass, box = { arm_len, 0.05, 0.12 },
                    pos = arm_point(inner, k, 0.5, y), rot = rot })
    add(m.bodies, { name = frame_name(inner, k) .. "_cross", mass = mass, inertia = inertia,
                    pos = arm_point(inner, k, 0.5, c), rot = rot })
  end
end

add(m.bodies, { name = "platform", mass = 800, box = { 2.4, 1.2, 0.15 }, pos = { 0, 0, z_top + 0.175 } })

---- constraints ---------------------------------------------------------------------

local function hinge(name, a, b, p) add(m.constraints, { name = name, type = "hinge", a = a, b = b, anchor = p, axis = Y }) end

for _, w in ipairs(wheels) do
  hinge("axle" .. w[1], "chassis", "wheel" .. w[1], { w[2], w[3], wheel_r })
end
hinge("foot", "chassis", "inner0", { x0, y_in, z0 })

-- sliding end: a roller shaft across the lift slides along x on its carrier
-- and is pinned to the arm end
local function roller(name, carrier, arm, p, y_arm, slide)
  add(m.bodies, { name = name, mass = 12, cylinder = { 0.05, 2 * y_out + 0.1 }, pos = p, rot = along_y })
  add(m.constraints, { name = name .. "_slide", type = slide or "prismatic", a = carrier, b = name,
                       anchor = p, axis = { 1, 0, 0 } })
  hinge(name .. "_pin", name, arm, { p[1], y_arm, p[3] })
end
roller("roller_bottom", "chassis", "outer0", { x0 + s, 0, z0 }, y_out)

-- lift cylinder: barrel from a well in the chassis to a lug under the lowest
-- inner frame's pivot tube; it lengthens as the arms rise
do
  local p = { x0 + 0.85 * s, 0, chassis_z }
  local q = arm_point(true, 0, 0.5, 0); q[3] = q[3] - 0.08
  local d = { q[1] - p[1], 0, q[3] - p[3] }
  local len = math.sqrt(d[1] ^ 2 + d[3] ^ 2)
  local u = { d[1] / len, 0, d[3] / len }
  local rot = roty(math.atan(u[1], u[3]))   -- body z along u
  local function at(f) return { p[1] + f * d[1], 0, p[3] + f * d[3] } end
  add(m.bodies, { name = "barrel", mass = 25, cylinder = { 0.06, 0.6 * len }, pos = at(0.3), rot = rot })
  add(m.bodies, { name = "rod", mass = 8, cylinder = { 0.03, 0.6 * len }, pos = at(0.7), rot = rot })
  add(m.constraints, { name = "barrel_eye", type = "ball", a = "chassis", b = "barrel", anchor = p })
  add(m.constraints, { name = "cylinder", type = "prismatic", a = "barrel", b = "rod", anchor = at(0.5), axis = u })
  add(m.constraints, { name = "rod_eye", type = "ball", a = "rod", b = "inner0_cross", anchor = q })
  -- the hydraulics: the oil column between the eyes is a driven rod that
  -- extends the cylinder at 3 cm/s by up to 25 cm
  add(m.constraints, { name = "lift", type = "rod", a = "barrel", b = "rod", anchor_a = p, anchor_b = q,
                       speed = 0.03, upper = len + 0.25 })
end

-- the stack, stage by stage
for k = 0, stages - 1 do
  local inner, outer = frame_name(true, k), frame_name(false, k)
  hinge("pivot" .. k, inner, outer, arm_point(true, k, 0.5, y_pin))
  add(m.constraints, { name = inner .. "_weld", type = "weld", a = inner, b = inner .. "_cross",
                       anchor = arm_point(true, k, 0.5, y_in) })
  add(m.constraints, { name = outer .. "_weld", type = "weld", a = outer, b = outer .. "_cross",
                       anchor = arm_point(false, k, 0.5, y_out) })
  if k + 1 < stages then
    hinge("knee_inner" .. k, inner, frame_name(false, k + 1), arm_point(true, k, 1, y_pin))
    hinge("knee_outer" .. k, outer, frame_name(true, k + 1), arm_point(false, k, 1, y_pin))
  end
end

hinge("head", frame_name(false, stages - 1), "platform", { x0, y_out, z_top })
roller("roller_top", "platform", frame_name(true, stages - 1), { x0 + s, 0, z_top }, y_in, "cylindrical")

return m
