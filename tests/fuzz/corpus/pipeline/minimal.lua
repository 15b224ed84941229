return { name = "minimal", bodies = { { name = "a", mass = 1, sphere = 0.1, pos = { 0, 0, 0 } } },
         constraints = { { name = "pin", type = "ball", a = "world", b = "a", anchor = { 0, 0, 0.2 } } } }
