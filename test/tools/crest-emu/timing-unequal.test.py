import re
import sys

d = sys.argv[1]


def cycles(name):
    text = open(f"{d}/{name}.txt").read()
    return int(re.search(r"modelled time: (\d+) cycles", text).group(1))


light, light_only = cycles("light"), cycles("light-only")
heavy, unequal, unequal_only = cycles("heavy"), cycles("unequal"), cycles("unequal-only")
assert light == light_only, (light, light_only)
assert unequal_only == light, (unequal_only, light)
assert heavy > 3 * light, (heavy, light)
mean = (light + heavy) / 2
assert 0.9 * mean <= unequal <= 1.2 * mean, (unequal, mean)
print("ok", light, heavy, unequal)
