-- box_rest.lua: a 10 kg box dropped from 1 cm onto the ground (test_inequality.c).
return {
  name = "box_rest",
  settings = { ground = { height = 0, friction = 0.8 } },
  bodies = { { name = "box", mass = 10, box = {0.4, 0.4, 0.4}, shape = { box = {0.4, 0.4, 0.4} }, pos = {0, 0, 0.21} } },
  constraints = {},
}
