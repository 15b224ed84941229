-- scissor_redundant.lua: a two-sided six-stage scissor lift in which every
-- pair of bars is one body (the two sides joined by a cross tube), so each
-- joint is a pair of hinges on one axis: 40 hinges, 2 prismatic sliders and
-- a rod that holds the spread of the base, 211 equality rows of which
-- many are redundant (parallel hinges on planar loops). A 300 kg platform
-- on 15 kg bar pairs. z is up, SI units.
local stages, L, alpha = 6, 1.2, math.rad(25)
local X, H, side, z0 = L * math.cos(alpha), L * math.sin(alpha), 0.6, 0.3
local m = { name = "scissor_redundant", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
local function z(i) return z0 + i * H end
local function bar(name, x0, zb, x1, zt)
  local phi = math.atan(-(zt - zb), x1 - x0)
  add(m.bodies, { name = name, mass = 15, box = { L, 2 * side, 0.06 }, pos = { (x0 + x1) / 2, 0, (zb + zt) / 2 },
                  rot = { math.cos(phi / 2), 0, math.sin(phi / 2), 0 } })
end
-- a pair of hinges (both sides of the lift) about y through (x, zz)
local function hinges(name, a, b, x, zz)
  for _, s in ipairs({ -1, 1 }) do
    add(m.constraints, { name = name .. (s < 0 and "_l" or "_r"), type = "hinge", a = a, b = b,
                         anchor = { x, s * side, zz }, axis = { 0, 1, 0 } })
  end
end
for i = 0, stages - 1 do
  bar("a" .. i, -X / 2, z(i), X / 2, z(i + 1))
  bar("b" .. i, X / 2, z(i), -X / 2, z(i + 1))
  hinges("centre" .. i, "a" .. i, "b" .. i, 0, z(i) + H / 2)
  if i > 0 then
    hinges("left" .. i, "b" .. (i - 1), "a" .. i, -X / 2, z(i))
    hinges("right" .. i, "a" .. (i - 1), "b" .. i, X / 2, z(i))
  end
end
add(m.bodies, { name = "base_slider", mass = 2, box = { 0.1, 0.1, 0.1 }, pos = { X / 2, 0, z0 } })
add(m.bodies, { name = "platform", mass = 300, box = { X + 0.4, 2 * side + 0.2, 0.1 }, pos = { 0, 0, z(stages) + 0.1 } })
add(m.bodies, { name = "top_slider", mass = 2, box = { 0.1, 0.1, 0.1 }, pos = { X / 2, 0, z(stages) } })
hinges("base", "world", "a0", -X / 2, z0)
add(m.constraints, { name = "base_rail", type = "prismatic", a = "world", b = "base_slider", anchor = { X / 2, 0, z0 },
                     axis = { 1, 0, 0 } })
hinges("base_roller", "base_slider", "b0", X / 2, z0)
hinges("top", "platform", "b" .. (stages - 1), -X / 2, z(stages))
add(m.constraints, { name = "top_rail", type = "prismatic", a = "platform", b = "top_slider",
                     anchor = { X / 2, 0, z(stages) }, axis = { 1, 0, 0 } })
hinges("top_roller", "top_slider", "a" .. (stages - 1), X / 2, z(stages))
add(m.constraints, { name = "spread", type = "rod", a = "world", b = "base_slider", anchor_a = { -X / 2, 0, z0 },
                     anchor_b = { X / 2, 0, z0 } })
return m
