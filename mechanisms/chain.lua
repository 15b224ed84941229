-- chain.lua: a hanging chain of 10 light links (0.1 kg each) ending in a
-- 100 kg weight: mass ratio 1000:1, the case where plain PGS stretches the
-- chain and LDL-PGS does not. Links are joined by ball joints; the top link
-- hangs from the world. z is up, SI units.

local links = 10
local len = 0.1                                   -- link length (m)
local m = { name = "chain", bodies = {}, constraints = {} }

for i = 1, links do
  m.bodies[#m.bodies + 1] = {
    name = "link" .. i,
    mass = 0.1,
    cylinder = { 0.01, len },                     -- thin rod along z
    pos = { 0, 0, -(i - 0.5) * len },
  }
end
m.bodies[#m.bodies + 1] = {
  name = "weight",
  mass = 100.0,
  box = { 0.2, 0.2, 0.2 },
  pos = { 0, 0, -links * len - 0.1 },
}

m.constraints[#m.constraints + 1] = {
  name = "hook", type = "ball", a = "world", b = "link1", anchor = { 0, 0, 0 },
}
for i = 2, links do
  m.constraints[#m.constraints + 1] = {
    name = "joint" .. i, type = "ball", a = "link" .. (i - 1), b = "link" .. i,
    anchor = { 0, 0, -(i - 1) * len },
  }
end
m.constraints[#m.constraints + 1] = {
  name = "shackle", type = "ball", a = "link" .. links, b = "weight",
  anchor = { 0, 0, -links * len },
}

return m
