-- three_link_pendulum.lua: three 1 m links (1 kg each) on hinges, released
-- horizontal from rest: the links whip around fast, so velocity-level
-- constraints drift on their curved paths (issue 15: 4 cm at dt 1/60 with
-- Baumgarte alone). z is up, SI units.
local m = { name = "three_link_pendulum", bodies = {}, constraints = {} }
for i = 1, 3 do
  m.bodies[i] = { name = "link" .. i, mass = 1.0, box = { 1.0, 0.05, 0.05 }, pos = { i - 0.5, 0, 0 } }
  m.constraints[i] = { name = "hinge" .. i, type = "hinge", a = i == 1 and "world" or "link" .. (i - 1),
                       b = "link" .. i, anchor = { i - 1, 0, 0 }, axis = { 0, 1, 0 } }
end
return m
