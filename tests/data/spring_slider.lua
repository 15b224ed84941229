-- spring_slider.lua: a 10 kg slider on an undamped spring of 1000 N/m, released
-- 0.1 m from rest; it oscillates at sqrt(k / m) = 10 rad/s (test_inequality.c).
return {
  name = "spring1",
  settings = { gravity = {0, 0, 0}, dt = 1/240 },
  bodies = { { name = "mass", mass = 10, box = {0.1, 0.1, 0.1}, pos = {0, 0, 0} } },
  constraints = {
    { name = "slide", type = "prismatic", a = "world", b = "mass", anchor = {0, 0, 0}, axis = {0, 0, 1} },
    { name = "spring", type = "spring", joint = "slide", axis = "linear", stiffness = 1000, rest = -0.1 },
  },
}
