-- crane.lua: a slewing crane for the example game. A turret turns on a
-- fixed base (a hinge with a motor), a boom pivots on the turret and is
-- raised by a hydraulic cylinder (a driven rod), and a 300 kg hook hangs
-- from the boom's tip on a chain of four light links (ball joints): the
-- heavy load on a light chain that LDL-PGS holds together. z is up, SI
-- units.
local m = { name = "crane", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end

local pivot = { 0.5, 0, 3.5 }   -- the boom's pivot on the turret
local tip = { 8.5, 0, 3.5 }     -- the boom's tip
add(m.bodies, { name = "base", fixed = true, box = { 2, 2, 0.5 }, pos = { 0, 0, 0.25 } })
add(m.bodies, { name = "turret", mass = 2000, box = { 1.5, 1.5, 3 }, pos = { 0, 0, 2 } })
add(m.bodies, { name = "boom", mass = 800, box = { 8, 0.4, 0.4 }, pos = { 4.5, 0, 3.5 } })
add(m.constraints, { name = "slew", type = "hinge", a = "base", b = "turret", anchor = { 0, 0, 0.5 },
                     axis = { 0, 0, 1 } })
add(m.constraints, { name = "slew_motor", type = "motor", joint = "slew", speed = 0, max_force = 5e4 })
add(m.constraints, { name = "boom_pivot", type = "hinge", a = "turret", b = "boom", anchor = pivot,
                     axis = { 0, 1, 0 } })
-- the cylinder: from low on the turret to a third of the way up the boom,
-- extending at 5 cm/s by up to 40 cm
local a, b = { 0.5, 0, 1.0 }, { 3.0, 0, 3.5 }
local len = math.sqrt((b[1] - a[1]) ^ 2 + (b[3] - a[3]) ^ 2)
add(m.constraints, { name = "luff", type = "rod", a = "turret", b = "boom", anchor_a = a, anchor_b = b,
                     speed = 0.05, upper = len + 0.4 })

-- the hook on its chain
local prev, z = "boom", tip[3]
for i = 1, 4 do
  local link = "link" .. i
  add(m.bodies, { name = link, mass = 5, box = { 0.05, 0.05, 0.5 }, pos = { tip[1], 0, z - 0.25 } })
  add(m.constraints, { name = "chain" .. i, type = "ball", a = prev, b = link, anchor = { tip[1], 0, z } })
  prev, z = link, z - 0.5
end
add(m.bodies, { name = "hook", mass = 300, sphere = 0.3, pos = { tip[1], 0, z - 0.3 } })
add(m.constraints, { name = "hook_eye", type = "ball", a = prev, b = "hook", anchor = { tip[1], 0, z } })
return m
