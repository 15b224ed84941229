-- stewart.lua: a Stewart platform (a 6-6 hexapod). A platform with a
-- 400 kg load welded on its centre stands on six legs over a fixed base.
-- Each leg is a hydraulic cylinder in two bodies: the barrel, on a
-- universal joint at the base, and the piston, on a ball joint under the
-- platform, sliding in each other on a prismatic joint along the leg. The
-- universal joint's two axes are both across the leg, so the leg cannot
-- spin about itself; the six leg lengths set the platform's six degrees of
-- freedom. The base joints sit in pairs 30 degrees apart on a 1 m circle,
-- the platform joints in pairs on a 0.6 m circle turned by 60 degrees, so
-- every leg leans across to the neighbouring pair (the usual 6-6 layout).
-- Each prismatic joint has a `positional_limit` (the stroke: 10 cm in and
-- out of the initial pose) and a `motor` on its travel (axis "linear",
-- m/s; speed 0 holds the leg), with 8 kN each: the legs carry 0.93 kN
-- each at rest. The load sits on the platform's centre, so every
-- leg carries the same. Motors and limits are not equality rows: they
-- leave the generated program's structure unchanged.
-- mechanisms/stewart.drive extends every leg into its upper stroke limit,
-- holds it there and retracts.
-- z is up, SI units.

local m = { name = "stewart", bodies = {}, constraints = {}, settings = { probe = "platform" } }
local function add(t, x) t[#t + 1] = x; return x end

local base_r, platform_r = 1.0, 0.6      -- joint circles (m)
local base_z, platform_z = 0.1, 1.2      -- heights of the base and platform joints
local half_pair = math.rad(15)           -- half the angle between the joints of a pair
local stroke = 0.1                       -- travel either way from the initial pose (m)
local barrel_len, piston_len = 0.7, 0.7  -- they overlap in the middle of the leg

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function scale(a, s) return { a[1] * s, a[2] * s, a[3] * s } end
local function addv(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function norm(a) local l = math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2); return scale(a, 1 / l) end
local function on_circle(r, angle, z) return { r * math.cos(angle), r * math.sin(angle), z } end
-- the rotation that turns body z onto the unit vector u (a cylinder along u)
local function z_onto(u)
  local axis = cross({ 0, 0, 1 }, u)
  local s = math.sqrt(axis[1] ^ 2 + axis[2] ^ 2 + axis[3] ^ 2)
  local angle = math.atan(s, u[3])
  if s < 1e-12 then return { 1, 0, 0, 0 } end
  local k = math.sin(angle / 2) / s
  return { math.cos(angle / 2), axis[1] * k, axis[2] * k, axis[3] * k }
end

add(m.bodies, { name = "base", fixed = true, cylinder = { 1.2, 0.1 }, pos = { 0, 0, 0.05 } })
add(m.bodies, { name = "platform", mass = 80, cylinder = { 0.7, 0.08 }, pos = { 0, 0, platform_z + 0.04 } })
add(m.bodies, { name = "load", mass = 400, box = { 0.6, 0.6, 0.3 }, pos = { 0, 0, platform_z + 0.08 + 0.15 } })
add(m.constraints, { name = "load_weld", type = "weld", a = "platform", b = "load",
                     anchor = { 0, 0, platform_z + 0.08 } })

for k = 0, 2 do
  for _, side in ipairs({ -1, 1 }) do
    local i = 2 * k + (side > 0 and 2 or 1)     -- legs 1..6
    local B = on_circle(base_r, math.rad(120 * k) + side * half_pair, base_z)
    local Pj = on_circle(platform_r, math.rad(120 * k + side * 60) - side * half_pair, platform_z)
    local u = norm(sub(Pj, B))                   -- along the leg, upwards
    local across = norm({ -u[2], u[1], 0 })      -- horizontal, across the leg
    local leg = "leg" .. i
    add(m.bodies, { name = leg .. "_barrel", mass = 8, cylinder = { 0.05, barrel_len },
                    pos = addv(B, scale(u, barrel_len / 2)), rot = z_onto(u) })
    add(m.bodies, { name = leg .. "_piston", mass = 4, cylinder = { 0.03, piston_len },
                    pos = sub(Pj, scale(u, piston_len / 2)), rot = z_onto(u) })
    add(m.constraints, { name = leg .. "_foot", type = "universal", a = "base", b = leg .. "_barrel",
                         anchor = B, axis_a = across, axis_b = cross(u, across) })
    add(m.constraints, { name = leg .. "_slide", type = "prismatic", a = leg .. "_barrel", b = leg .. "_piston",
                         anchor = scale(addv(B, Pj), 0.5), axis = u })
    add(m.constraints, { name = leg .. "_head", type = "ball", a = leg .. "_piston", b = "platform", anchor = Pj })
    add(m.constraints, { name = leg .. "_stroke", type = "positional_limit", joint = leg .. "_slide",
                         lower = -stroke, upper = stroke })
    add(m.constraints, { name = leg .. "_drive", type = "motor", joint = leg .. "_slide", axis = "linear",
                         speed = 0, max_force = 8000 })
  end
end

return m
