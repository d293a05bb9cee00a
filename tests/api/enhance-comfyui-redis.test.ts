// comfyui:<upscale model file> enhance routes (contract 1.3) against the ComfyUI fake, on a real redis-server over REDIS_URL.
import { runEnhanceComfyUiSuite } from "./enhance-comfyui-suite";

runEnhanceComfyUiSuite("redis");
