// Arabic (Saudi Arabia), written right to left (the response says dir: 'rtl'): the six plural forms (one and two are
// words, 3–10 take the plural, 11–99 the singular), «» quotation marks, the Arabic comma; Intl writes Arabic-Indic
// digits (٥٤٫٨٪). present.ts isolates every inserted label (FSI … PDI) so a Latin label keeps its own direction.
import type { ThesisMessages } from './en-US.ts';

const points = '{points, plural, zero {# نقطة} one {نقطة واحدة} two {نقطتين} few {# نقاط} many {# نقطة} other {# نقطة}}';
const lastHours = '{hours, plural, zero {# ساعة} one {الساعة الماضية} two {الساعتين الماضيتين} few {الساعات الـ# الماضية} many {الـ# ساعة الماضية} other {الـ# ساعة الماضية}}';

export const arSA: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move': `{direction, select, up {ارتفع} other {انخفض}} سعر «{outcome}» بمقدار ${points} خلال ${lastHours}، من {from, number, ::percent .#} إلى {to, number, ::percent .#}.`,
  'reason.volume': `جرى تداول {volume, number, ::.##} {symbol} خلال ${lastHours} عبر {trades, plural, zero {# صفقة} one {صفقة واحدة} two {صفقتين} few {# صفقات} many {# صفقة} other {# صفقة}}.`,
  'reason.closing_soon':
    'يُغلق {hours, plural, =0 {خلال أقل من ساعة} one {خلال ساعة واحدة} two {خلال ساعتين} few {خلال # ساعات} many {خلال # ساعة} other {خلال # ساعة}}، في {closeAt, date, close}.',
  'reason.disagreement': `سعر «{outcome}» عند {price, number, ::percent .#}، بفارق ${points} عن سوق مرتبطة في فئة {category} سعرها {relatedPrice, number, ::percent .#}.`,
  'reason.forecast': `يضع توقّع حديث لأحد الوكلاء «{outcome}» عند {forecast, number, ::percent .#}، أي {direction, select, above {أعلى} other {أدنى}} من سعر السوق البالغ {price, number, ::percent .#} بمقدار ${points}.`,
  'reason.new_market':
    'سوق جديدة فُتحت {hours, plural, =0 {قبل أقل من ساعة} one {قبل ساعة واحدة} two {قبل ساعتين} few {قبل # ساعات} many {قبل # ساعة} other {قبل # ساعة}}، {trades, plural, =0 {ولم تُسجَّل فيها صفقات بعد} one {وسُجّلت فيها صفقة واحدة حتى الآن} two {وسُجّلت فيها صفقتان حتى الآن} few {وسُجّلت فيها # صفقات حتى الآن} many {وسُجّلت فيها # صفقة حتى الآن} other {وسُجّلت فيها # صفقة حتى الآن}}.',
  'outcome.yes': 'نعم',
  'outcome.no': 'لا',
  'category.CRYPTO': 'العملات المشفرة',
  'category.SPORTS': 'الرياضة',
  'category.POLITICS': 'السياسة',
  'category.FINANCE': 'المال',
  'category.TECH': 'التقنية',
  'category.DAILY_LIFE': 'الحياة اليومية',
  'category.LOCAL': 'الشؤون المحلية',
  'category.SOCIAL': 'المجتمع',
  'category.FUN': 'الترفيه',
  'category.OTHER': 'أخرى',
};
