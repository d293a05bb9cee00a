// a1111:<upscaler> enhance routes (contract 1.3) against the AUTOMATIC1111 fake, on SQLite and local files.
import { runEnhanceA1111Suite } from "./enhance-a1111-suite";

runEnhanceA1111Suite("embedded");
