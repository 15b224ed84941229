-- table.sort charged len*log2(len) instructions: with __len returning the
-- largest integer the charge overflowed (undefined behaviour)
local t = setmetatable({}, { __len = function() return math.maxinteger end })
table.sort(t)
return t
