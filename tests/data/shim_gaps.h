// Declarations the shim (musaport/shim) does not have yet but the ported c10/musa
// headers use; force-included by tests/test_registration.py so the syntax check
// of RegisterMUSA.cpp tests the generated code, not the shim's coverage.
#pragma once
enum musaStreamCaptureStatus {
  musaStreamCaptureStatusNone = 0,
  musaStreamCaptureStatusActive = 1,
  musaStreamCaptureStatusInvalidated = 2,
};
enum musaStreamCaptureMode {
  musaStreamCaptureModeGlobal = 0,
  musaStreamCaptureModeThreadLocal = 1,
  musaStreamCaptureModeRelaxed = 2,
};
inline musaError_t musaThreadExchangeStreamCaptureMode(musaStreamCaptureMode*) { return musaSuccess; }
inline musaError_t musaStreamIsCapturing(musaStream_t, musaStreamCaptureStatus* status) {
  *status = musaStreamCaptureStatusNone;
  return musaSuccess;
}
