// Generated from scan.wat by wabt's wat2wasm: after changing scan.wat, run
// `UPDATE_WASM=1 npx vitest run src/scan-wasm.test.ts` in packages/classify (the test fails while
// this differs from what scan.wat compiles to).

/** scan.wat's module in base64. */
const SCAN_WASM =
  'AGFzbQEAAAABHAJgBn9/f39/fwF/YA1/f39/f39/f39/f39/AX8DAwIAAQUDAQABBxkDBm1lbW9yeQIABHNjYW4AAAVsYW5l' +
  'cwABCuUEAosBAQN/AkAgACABTw0AA0AgBCAALQAAciEGIAIgBkEBdGovAQAhByAHQQFxBEAgB0H//wNGBEBBACAANgIAQQQg' +
  'BjYCAEEIIAU2AgBBfw8LIAMgBUECdGohCCAIIAc2AgAgCCAANgIEIAVBAmohBQsgB0EBdkEHdCEEIABBAWohACAAIAFJDQAL' +
  'CyAFC9UDAQl/AkAgByAETw0AA0AgCSAAIAdqLQAAciENIAogASAHai0AAHIhDiALIAIgB2otAAByIQ8gDCADIAdqLQAAciEQ' +
  'IAUgDUEBdGovAQAhESAFIA5BAXRqLwEAIRIgBSAPQQF0ai8BACETIAUgEEEBdGovAQAhFCARIBJyIBMgFHJyQQFxBEAgEUH/' +
  '/wNGIBJB//8DRnIgE0H//wNGIBRB//8DRnJyBEBBACAJNgIAQQQgCjYCAEEIIAs2AgBBDCAMNgIAQRAgDTYCAEEUIA42AgBB' +
  'GCAPNgIAQRwgEDYCAEEgIAc2AgBBJCAINgIAQX8PCyARQQFxBEAgBiAIQQJ0aiEVIBUgETYCACAVIAAgB2o2AgQgCEECaiEI' +
  'CyASQQFxBEAgBiAIQQJ0aiEVIBUgEjYCACAVIAEgB2o2AgQgCEECaiEICyATQQFxBEAgBiAIQQJ0aiEVIBUgEzYCACAVIAIg' +
  'B2o2AgQgCEECaiEICyAUQQFxBEAgBiAIQQJ0aiEVIBUgFDYCACAVIAMgB2o2AgQgCEECaiEICwsgEUEBdkEHdCEJIBJBAXZB' +
  'B3QhCiATQQF2QQd0IQsgFEEBdkEHdCEMIAdBAWohByAHIARJDQALCyAICw==';

/** scan.wat's module, decoded on call (the first scanner compiles it, never the import). */
export const scanWasmBytes = (): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(SCAN_WASM), (character) => character.charCodeAt(0));
