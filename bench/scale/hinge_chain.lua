-- hinge_chain.lua: a hanging chain of LINKS links (default 1000) joined by
-- hinges, the first hinged to the world: the scaling series of `make bench`
-- (bench/scale.sh) and the symbolic phase's growth test. Every link is a
-- 0.2 m box of 1 kg; the hinge pins run along y. z is up, SI units.
local n = LINKS or 1000
local len = 0.2
local m = { name = "hinge_chain" .. n, bodies = {}, constraints = {} }
for i = 1, n do
  m.bodies[i] = { name = "link" .. i, mass = 1.0, box = { 0.05, 0.05, len },
                  pos = { 0, 0, -(i - 0.5) * len } }
  m.constraints[i] = { name = "hinge" .. i, type = "hinge",
                       a = i == 1 and "world" or "link" .. (i - 1), b = "link" .. i,
                       anchor = { 0, 0, -(i - 1) * len }, axis = { 0, 1, 0 } }
end
return m
