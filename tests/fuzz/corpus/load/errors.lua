-- several schema errors at once
local m = { name = "bad name!", bodies = {
  { name = "a", mass = -1, inertia = { 1, 1, 5 }, pos = { 0, 0 } },
  { name = "a", mass = 1, sphere = 0.1, box = { 1, 1, 1 }, pos = { 0, 0, 0 / 0 } },
}, constraints = {
  { name = "c", type = "hinge", a = "a", b = "zzz", anchor = { 0, 0, 0 }, axis = { 0, 0, 0 } },
  { name = "c", type = "warp", a = "a", b = "a" },
  { name = "l", type = "angular_limit", hinge = "nothing", lower = 1, upper = -1 },
}, extra = true }
return m
