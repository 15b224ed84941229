-- grid.lua: a square net of SIDE x SIDE plates (default 20) joined by ball
-- joints to their right and back neighbours, the first row hinged to the
-- world: a mechanism whose constraint graph is a 2-D grid, so that
-- elimination creates fill (nested-dissection-like growth). Part of the
-- scaling series of `make bench` (bench/scale.sh). z is up, SI units.
local n = SIDE or 20
local pitch = 0.3
local m = { name = "grid" .. n, bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x end
local function id(i, j) return "p" .. i .. "_" .. j end
for i = 1, n do
  for j = 1, n do
    add(m.bodies, { name = id(i, j), mass = 2.0, box = { 0.25, 0.25, 0.02 },
                    pos = { (i - 1) * pitch, (j - 1) * pitch, 0 } })
  end
end
for i = 1, n do
  for j = 1, n do
    local x, y = (i - 1) * pitch, (j - 1) * pitch
    if i < n then
      add(m.constraints, { name = "bx" .. i .. "_" .. j, type = "ball", a = id(i, j), b = id(i + 1, j),
                           anchor = { x + pitch / 2, y, 0 } })
    end
    if j < n then
      add(m.constraints, { name = "by" .. i .. "_" .. j, type = "ball", a = id(i, j), b = id(i, j + 1),
                           anchor = { x, y + pitch / 2, 0 } })
    end
  end
  add(m.constraints, { name = "hang" .. i, type = "hinge", a = "world", b = id(i, 1),
                       anchor = { (i - 1) * pitch, -pitch / 2, 0 }, axis = { 1, 0, 0 } })
end
return m
