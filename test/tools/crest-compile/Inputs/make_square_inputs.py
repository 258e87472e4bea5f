#!/usr/bin/env python3
"""Inputs of tune-square.mlir (a, b, bias) for crest-emu, in DIR."""
import sys

import numpy as np

d = sys.argv[1]
np.save(f"{d}/a.npy", np.full((256, 256), 0.25, np.float16))
np.save(f"{d}/b.npy", np.full((256, 256), 0.5, np.float16))
np.save(f"{d}/bias.npy", np.ones(256, np.float32))
