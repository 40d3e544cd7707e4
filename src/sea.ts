// The entry of the single executable (scripts/build-sea.mjs): the whole CLI as one script, since a single
// executable application runs one script and requires only Node's built-in modules. No launcher and no
// code cache of dlake's own: the executable carries V8's code cache of this script, made when it was built.
import { main } from './cli.js';

void main(process.argv);
