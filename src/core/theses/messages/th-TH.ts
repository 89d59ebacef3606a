// Thai (Thailand): no full stop at the end of a sentence, a space between sentences, no plural; Intl keeps Latin digits
// and the Buddhist calendar (close times show no year, so the day and month match the Gregorian ones).
import type { ThesisMessages } from './en-US.ts';

export const thTH: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {ขึ้น} other {ลง}} {points, number} จุดในช่วง {hours, number} ชั่วโมงที่ผ่านมา จาก {from, number, ::percent .#} เป็น {to, number, ::percent .#}',
  'reason.volume': 'มีการซื้อขาย {volume, number, ::.##} {symbol} ในช่วง {hours, number} ชั่วโมงที่ผ่านมา จากทั้งหมด {trades, number} รายการ',
  'reason.closing_soon': 'ปิดรับ{hours, plural, =0 {ภายในไม่ถึงหนึ่งชั่วโมง} other {ในอีก # ชั่วโมง}} ({closeAt, date, close})',
  'reason.disagreement':
    '“{outcome}” อยู่ที่ {price, number, ::percent .#} ต่างจากตลาดที่เกี่ยวข้องในหมวด{category} ซึ่งอยู่ที่ {relatedPrice, number, ::percent .#} ถึง {points, number} จุด',
  'reason.forecast':
    'การคาดการณ์ล่าสุดของเอเจนต์ให้ “{outcome}” ที่ {forecast, number, ::percent .#} {direction, select, above {สูงกว่า} other {ต่ำกว่า}}ราคาตลาดที่ {price, number, ::percent .#} อยู่ {points, number} จุด',
  'reason.new_market':
    'ตลาดใหม่ เปิด{hours, plural, =0 {เมื่อไม่ถึงหนึ่งชั่วโมงที่แล้ว} other {เมื่อ # ชั่วโมงที่แล้ว}} {trades, plural, =0 {ยังไม่มีการซื้อขาย} other {มีการซื้อขายแล้ว # รายการ}}',
  'outcome.yes': 'ใช่',
  'outcome.no': 'ไม่ใช่',
  'category.CRYPTO': 'คริปโต',
  'category.SPORTS': 'กีฬา',
  'category.POLITICS': 'การเมือง',
  'category.FINANCE': 'การเงิน',
  'category.TECH': 'เทคโนโลยี',
  'category.DAILY_LIFE': 'ชีวิตประจำวัน',
  'category.LOCAL': 'ท้องถิ่น',
  'category.SOCIAL': 'สังคม',
  'category.FUN': 'บันเทิง',
  'category.OTHER': 'อื่น ๆ',
};
