// comfyui:<upscale model file> enhance routes (contract 1.3) against the ComfyUI fake, on SQLite and local files.
import { runEnhanceComfyUiSuite } from "./enhance-comfyui-suite";

runEnhanceComfyUiSuite("embedded");
