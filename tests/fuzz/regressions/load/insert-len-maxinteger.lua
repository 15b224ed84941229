-- table.insert(t, pos, v) was charged from len + 1, which overflowed when
-- __len returns the largest integer (undefined behaviour)
local t = setmetatable({}, { __len = function() return math.maxinteger end })
pcall(table.insert, t, 1.5, 1)
return t
