-- heavy_chain.lua: the sample chain (10 links of 0.1 kg on ball joints, a
-- 100 kg weight: mass ratio 1000:1) released from 30 degrees off the
-- vertical, so it swings (issue 15: LDL-PGS exploded within 3.3 s at 60 Hz).
-- z is up, SI units.
local links, len = 10, 0.1
local a = math.rad(30)
local s, c = math.sin(a), math.cos(a)
local function at(d) return { d * s, 0, -d * c } end   -- distance d down the chain
local rot = { math.cos(a / 2), 0, -math.sin(a / 2), 0 }  -- about y: body z along the chain
local m = { name = "heavy_chain", bodies = {}, constraints = {} }
for i = 1, links do
  m.bodies[i] = { name = "link" .. i, mass = 0.1, cylinder = { 0.01, len }, pos = at((i - 0.5) * len), rot = rot }
end
m.bodies[links + 1] = { name = "weight", mass = 100.0, box = { 0.2, 0.2, 0.2 }, pos = at(links * len + 0.1), rot = rot }
m.constraints[1] = { name = "hook", type = "ball", a = "world", b = "link1", anchor = at(0) }
for i = 2, links do
  m.constraints[i] = { name = "joint" .. i, type = "ball", a = "link" .. (i - 1), b = "link" .. i, anchor = at((i - 1) * len) }
end
m.constraints[links + 1] = { name = "shackle", type = "ball", a = "link" .. links, b = "weight", anchor = at(links * len) }
return m
