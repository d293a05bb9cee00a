// The image library on embedded defaults: SQLite records and local files under DATA_DIR.
import { runImagesSuite } from "./images-suite";

runImagesSuite("embedded");
