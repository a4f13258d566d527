// fast-check for the suite, with one seed per run that every property of the file uses and that is printed, so a
// failure found once can be replayed: REFRACT_FC_SEED=<seed> npm test. (fast-check also names the seed and the
// path of a failing case in its error.)
import fc from 'fast-check';

const given = Number(process.env.REFRACT_FC_SEED);
const seed = Number.isSafeInteger(given) ? given : Math.floor(Math.random() * 2 ** 31);
// The failing case's own error goes into the report: the runner prints only the message, not its cause.
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed, includeErrorInReport: true });
console.log(`fast-check seed ${seed} (REFRACT_FC_SEED=${seed} replays it)`);

export default fc;
