// Every locale's catalog, written in the repository (no translation at run time). A locale missing a key does not
// compile (ThesisMessages); test/theses/catalogs.test.ts checks that each message takes the reference's arguments.
import type { ThesisLocale } from '../locales.ts';
import { arSA } from './ar-SA.ts';
import { deDE } from './de-DE.ts';
import { enUS, type ThesisMessages } from './en-US.ts';
import { esAR } from './es-AR.ts';
import { esCO } from './es-CO.ts';
import { esES } from './es-ES.ts';
import { esMX } from './es-MX.ts';
import { filPH } from './fil-PH.ts';
import { frFR } from './fr-FR.ts';
import { idID } from './id-ID.ts';
import { itIT } from './it-IT.ts';
import { jaJP } from './ja-JP.ts';
import { koKR } from './ko-KR.ts';
import { msMY } from './ms-MY.ts';
import { ptBR } from './pt-BR.ts';
import { ptPT } from './pt-PT.ts';
import { thTH } from './th-TH.ts';
import { trTR } from './tr-TR.ts';

export type { ThesisMessageKey, ThesisMessages } from './en-US.ts';

export const THESIS_CATALOGS: Record<ThesisLocale, ThesisMessages> = {
  'en-US': enUS,
  'es-ES': esES,
  'es-AR': esAR,
  'es-CO': esCO,
  'es-MX': esMX,
  'ms-MY': msMY,
  'pt-BR': ptBR,
  'pt-PT': ptPT,
  'ja-JP': jaJP,
  'th-TH': thTH,
  'id-ID': idID,
  'fil-PH': filPH,
  'fr-FR': frFR,
  'de-DE': deDE,
  'it-IT': itIT,
  'ar-SA': arSA,
  'tr-TR': trTR,
  'ko-KR': koKR,
};
