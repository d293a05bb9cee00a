// The image library on the production backends: real Redis through the Upstash REST bridge, and Vercel Blob.
import { hasRedisServer } from "../helpers/backends";
import { runImagesSuite } from "./images-suite";

if (hasRedisServer()) runImagesSuite("upstash");
