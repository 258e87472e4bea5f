"""Tests of the crest Python package (python/crest, docs/Python.md).

unittest test cases, which pytest runs as well; test/Python/python.test
runs them under lit with PYTHONPATH=build/python (or the installed copy)
and CREST_TEST_SRC the checkout.
"""

import os
import sys
import unittest
import warnings

import numpy as np

import crest

SRC = os.environ["CREST_TEST_SRC"]
SHARED = os.environ.get("CREST_TEST_SHARED", "")
LAYER = os.path.join(SRC, "test", "Embedding", "Inputs", "layer.mlir")
MALFORMED = os.path.join(SRC, "test", "Embedding", "Inputs", "malformed.mlir")

sys.path.insert(0, os.path.join(SRC, "scripts"))
from onnxpb import read_tensor  # noqa: E402


def layer_inputs(seed):
    """Deterministic, non-zero inputs of layer.mlir."""
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1, 1, (16, 32)).astype(np.float32),
            "w": rng.uniform(-1, 1, (32, 16)).astype(np.float32),
            "b": rng.uniform(-1, 1, (16,)).astype(np.float32)}


def layer_reference(inputs):
    x, w, b = (inputs[n].astype(np.float64) for n in ("x", "w", "b"))
    return np.maximum(x @ w + b, 0)


class CompileTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(crest.version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(crest.version(), os.environ["CREST_TEST_VERSION"])

    def test_path_bytes_and_text_give_one_package(self):
        from_path = crest.compile(LAYER, target="gfx942")
        with open(LAYER, "rb") as f:
            data = f.read()
        from_bytes = crest.compile(data, target="gfx942", name=LAYER)
        from_text = crest.compile(data.decode(), target="gfx942", name=LAYER)
        self.assertEqual(from_path.data, from_bytes.data)
        self.assertEqual(from_path.data, from_text.data)
        self.assertEqual(from_path.chip, "gfx942")

    def test_same_bytes_as_crest_compile(self):
        expected = os.environ.get("CREST_TEST_TOOL_PACKAGE")
        if not expected:
            self.skipTest("no crest-compile package given")
        with open(expected, "rb") as f:
            self.assertEqual(crest.compile(LAYER, target="gfx942").data,
                             f.read())

    def test_fuse_attention_option(self):
        block = os.path.join(SRC, "examples", "transformer-block.mlir")
        fused = crest.compile(block, target="gfx942")
        unfused = crest.compile(block, target="gfx942", fuse_attention=False)
        # One attention kernel where the ops were (docs/Attention.md).
        self.assertTrue(any("attention" in k["kernel"] for k in fused.kernels))
        self.assertFalse(any("attention" in k["kernel"]
                             for k in unfused.kernels))
        with self.assertRaises(crest.CompileError):
            crest.compile(block, target="gfx942", precision_budget=2)

    def test_report_as_data(self):
        package = crest.compile(LAYER, target="gfx90a")
        self.assertIn("crest-compile report: gfx90a", package.report)
        self.assertEqual(package.report_data["chip"], "gfx90a")
        self.assertEqual(package.report_data["wave_size"], 64)
        self.assertEqual(package.report_data["code_object_version"], 5)
        [kernel] = package.kernels
        self.assertEqual(kernel["kernel"], "layer_0")
        self.assertEqual(kernel["module"], "crest_kernels")
        self.assertGreater(kernel["vgprs"], 0)
        self.assertGreater(kernel["mfma"], 0)
        self.assertEqual(kernel["vgpr_spills"], 0)
        self.assertEqual(package.inputs,
                         [("x", "f32", (16, 32)), ("w", "f32", (32, 16)),
                          ("b", "f32", (16,))])
        self.assertEqual(package.outputs, [("y", "f32", (16, 16))])

    def test_emit_kinds(self):
        hsaco = crest.compile(LAYER, target="gfx942", emit="hsaco")
        self.assertEqual(hsaco.data[:4], b"\x7fELF")
        asm = crest.compile(LAYER, target="gfx942", emit="asm")
        self.assertIn(b"; gpu.module @crest_kernels", asm.data)
        self.assertIn(b"v_mfma", asm.data)

    def test_malformed_mlir(self):
        with self.assertRaises(crest.CompileError) as caught:
            crest.compile(MALFORMED, target="gfx942")
        error = caught.exception
        self.assertEqual(error.message, "expected non-function type")
        self.assertEqual(error.location, MALFORMED + ":3:33")
        self.assertIn(MALFORMED + ":3:33: error: expected non-function type",
                      str(error))
        self.assertEqual(error.diagnostics,
                         [crest.Diagnostic("error", error.message,
                                           error.location)])

    def test_unknown_chip(self):
        with self.assertRaises(crest.CompileError) as caught:
            crest.compile(LAYER, target="gfx000")
        self.assertTrue(caught.exception.message.startswith(
            "unknown chip 'gfx000'; known chips: gfx908"))
        self.assertEqual(caught.exception.location, "")

    def test_precision_the_chip_lacks(self):
        with open(LAYER) as f:
            text = f.read()
        bf16 = text.replace("f32", "bf16").replace(
            "acc = bf16, out = bf16", "acc = f32, out = f32")
        with self.assertRaises(crest.CompileError) as caught:
            crest.compile(bf16, target="gfx908", name="bf16.mlir")
        self.assertRegex(caught.exception.location, r"^bf16\.mlir:\d+:\d+$")

    def test_corrupt_onnx(self):
        rng = np.random.default_rng(3)
        garbage = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
        with self.assertRaises(crest.CompileError) as caught:
            crest.compile(garbage, target="gfx942", format="onnx",
                          name="random.onnx")
        self.assertIn("not a valid ONNX model", caught.exception.message)
        self.assertEqual(caught.exception.location, "random.onnx")

    def test_threads(self):
        import threading
        results, errors = [None] * 3, []

        def work(index):
            try:
                results[index] = crest.compile(LAYER, target="gfx942").data
                with self.assertRaises(crest.CompileError):
                    crest.compile(MALFORMED, target="gfx942")
            except Exception as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(results)), 1)
        self.assertEqual(results[0], crest.compile(LAYER,
                                                   target="gfx942").data)

    def test_bad_arguments(self):
        with self.assertRaises(crest.CompileError):
            crest.compile(LAYER, target="gfx942", emit="exe")
        with self.assertRaises(crest.CompileError):
            crest.compile(LAYER, target="gfx942", precision="f16")
        with self.assertRaises(TypeError):
            crest.compile(42)
        with self.assertRaises(ValueError):
            crest.compile(LAYER, format="tosa")


TOSA_CONV = """
func.func @conv(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x2x2xf32> {{
  %w = "tosa.const"() <{{values = dense<{w}> : tensor<2x1x1x3xf32>}}> : () -> tensor<2x1x1x3xf32>
  %b = "tosa.const"() <{{values = dense<{b}> : tensor<2xf32>}}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x2x2x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %r = tosa.clamp %y {{max_val = 6.0 : f32, min_val = 0.0 : f32}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}}
"""


class FrontEndTest(unittest.TestCase):
    """TOSA and linalg input (docs/FrontEnds.md) through crest.compile."""

    def test_tosa_against_numpy(self):
        w = np.array([[[[0.5, -1.0, 0.25]]], [[[-0.75, 2.0, 1.0]]]])
        b = np.array([0.125, -0.5])
        text = TOSA_CONV.format(w=w.tolist(), b=b.tolist())
        for precision in (None, "f16"):
            options = {"precision": precision} if precision else {}
            package = crest.compile(text, target="gfx942", name="conv.mlir",
                                    **options)
            x = np.random.default_rng(5).uniform(
                -2, 2, (1, 2, 2, 3)).astype(np.float32)
            y = crest.run(package, {"input0": x}, device="emu")["output0"]
            # NHWC x OHWI: y[n, h, w, o] = sum_i x[n, h, w, i] w[o, 0, 0, i].
            reference = np.clip(
                np.einsum("nhwi,oi->nhwo", x.astype(np.float64),
                          w[:, 0, 0, :]) + b, 0, 6)
            self.assertGreater(np.count_nonzero(reference), 2)
            tolerance = 1e-6 if precision is None else 5e-3
            np.testing.assert_allclose(y, reference, rtol=tolerance,
                                       atol=tolerance)

    def test_unsupported_tosa_op(self):
        text = ("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %y = tosa.sin %x : (tensor<4xf32>) -> tensor<4xf32>\n"
                "  return %y : tensor<4xf32>\n}\n")
        with self.assertRaises(crest.CompileError) as caught:
            crest.compile(text, target="gfx942", name="sin.mlir")
        self.assertEqual(caught.exception.message,
                         "'tosa.sin' is not supported by Crest's TOSA "
                         "conversion")
        self.assertEqual(caught.exception.location, "sin.mlir:2:8")


class RunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.package = crest.compile(LAYER, target="gfx942")

    def test_layer_against_numpy(self):
        for seed in (0, 1):
            inputs = layer_inputs(seed)
            outputs = crest.run(self.package, inputs, device="emu",
                                verify=True)
            self.assertEqual(list(outputs), ["y"])
            y = outputs["y"]
            self.assertEqual(y.dtype, np.float32)
            self.assertEqual(y.shape, (16, 16))
            reference = layer_reference(inputs)
            self.assertGreater(np.count_nonzero(reference), 64)
            np.testing.assert_allclose(y, reference, rtol=1e-5, atol=1e-5)

    def test_inputs_are_converted(self):
        inputs = layer_inputs(2)
        as_f64 = {name: value.astype(np.float64)
                  for name, value in inputs.items()}
        as_f64["b"] = as_f64["b"].tolist()
        y = crest.run(self.package, as_f64, device="emulator")["y"]
        np.testing.assert_allclose(y, layer_reference(inputs), rtol=1e-5,
                                   atol=1e-5)

    def test_package_from_bytes_and_file(self):
        inputs = layer_inputs(4)
        expected = crest.run(self.package, inputs, device="emu")["y"]
        path = os.path.join(os.environ["CREST_TEST_TMP"], "layer.crest")
        self.package.save(path)
        np.testing.assert_array_equal(
            crest.run(path, inputs, device="emu")["y"], expected)
        np.testing.assert_array_equal(
            crest.run(self.package.data, inputs, device="emu")["y"], expected)
        self.assertEqual(crest.Package.load(path).data, self.package.data)

    def test_run_errors(self):
        inputs = layer_inputs(5)
        del inputs["b"]
        with self.assertRaises(crest.RunError) as caught:
            crest.run(self.package, inputs, device="emu")
        self.assertIn("missing input: 'b'", caught.exception.message)
        inputs = layer_inputs(5)
        inputs["x"] = inputs["x"][:8]
        with self.assertRaises(crest.RunError) as caught:
            crest.run(self.package, inputs, device="emu")
        self.assertEqual(caught.exception.status, "CREST_ERROR_INPUT")
        with self.assertRaises(crest.RunError):
            crest.run(self.package, dict(layer_inputs(5), z=1), device="emu")
        with self.assertRaises(ValueError):
            crest.run(self.package, layer_inputs(5), device="tpu")
        with self.assertRaises(crest.RunError):
            crest.run(b"not a package", layer_inputs(5), device="emu")

    def test_hip_without_gpu(self):
        if os.path.exists("/dev/kfd"):
            self.skipTest("a GPU driver is present")
        with self.assertRaises(crest.RunError) as caught:
            crest.run(self.package, layer_inputs(6), device="hip")
        self.assertEqual(caught.exception.status, "CREST_ERROR_DEVICE")
        # auto falls back to the emulator.
        y = crest.run(self.package, layer_inputs(6), device="auto")["y"]
        np.testing.assert_allclose(y, layer_reference(layer_inputs(6)),
                                   rtol=1e-5, atol=1e-5)


@unittest.skipUnless(SHARED, "needs ../shared (CREST_TEST_SHARED)")
class SharedMlpTest(unittest.TestCase):
    """The shared MLP from ONNX, against onnxruntime's output."""

    def test_mlp(self):
        model = os.path.join(SHARED, "models", "mlp")
        data = os.path.join(model, "test_data_set_0")
        with open(os.path.join(data, "input_0.pb"), "rb") as f:
            _, x = read_tensor(f.read())
        with open(os.path.join(data, "output_0.pb"), "rb") as f:
            _, expected = read_tensor(f.read())
        self.assertGreater(np.abs(expected).mean(), 0.1)
        for precision, tolerance in (("f32", 1e-3), ("f16", 3e-2)):
            package = crest.compile(os.path.join(model, "model.onnx"),
                                    target="gfx942", precision=precision)
            [(name, dtype, shape)] = package.inputs
            self.assertEqual((dtype, shape), ("f32", x.shape))
            outputs = crest.run(package, {name: x}, device="emu")
            [y] = outputs.values()
            error = np.abs(y - expected).max() / np.abs(expected).max()
            self.assertLess(error, tolerance, precision)


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("error", crest.CompileWarning)
        unittest.main()
