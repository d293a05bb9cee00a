// Image input, several images and output formats (contract 1.2) on Redis through the Upstash bridge, and Blob.
import { runImageInputSuite } from "./image-input-suite";

runImageInputSuite("upstash");
