// Image input, several images and output formats (contract 1.2) on embedded defaults: SQLite and local files.
import { runImageInputSuite } from "./image-input-suite";

runImageInputSuite("embedded");
