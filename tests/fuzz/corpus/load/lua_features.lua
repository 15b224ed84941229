-- the sandbox's library: what a mechanism may use and what it may not
local t = setmetatable({}, { __index = function(_, k) return k end })
local ok, err = pcall(function() return require("os") end)
local s = string.rep("ab", 10) .. string.format("%5.2f", math.pi) .. tostring(#t)
table.sort({ 3, 1, 2 })
table.insert(t, 1)
local u = { table.unpack({ 1, 2, 3 }) }
print(s, ok, err, table.concat(u, ","), select("#", 1, 2), next({}), math.random(1, 6))
local co = coroutine and coroutine.create(function() end)
return { name = "features", bodies = { { name = "a", mass = 1, sphere = 0.1, pos = { 0, 0, 0 } } },
         constraints = {} }
