// The app's words in es-CO: es-ES with the words Colombia uses.
import type { Messages } from './en-US.ts';
import { esES } from './es-ES.ts';

const esCO: Messages = {
  ...esES,
  'markets.searchHint': 'Escribe mínimo 2 caracteres',
  'market.depth.lmsr': 'Costo de comprar cada resultado según el tamaño de la orden',
  'market.depth.cost': 'Costo',
  'market.depth.avgPrice': 'Precio promedio',
  'leaderboard.title': 'Ranking',
  'nav.leaderboard': 'Ranking',
  'category.FUN': 'Entretenimiento',
  'leaderboard.who': 'Billetera',
  'error.SERVICE_UNAVAILABLE': 'El servicio está ocupado o actualizándose con la cadena. Intenta de nuevo en unos segundos.',
  // Portfolio, claims, creator funds, the ledger proof check and the resolution actions (issue 23).
  'nav.portfolio': 'Portafolio',
  'portfolio.title': 'Tu portafolio',
  'portfolio.loading': 'Cargando tu portafolio…',
  'portfolio.claims.none': 'Por ahora no hay nada que cobrar.',
  // Buy PM (issue 23)
  'buy.card.bundles': 'Monto',
  'buy.relay.done': 'Listo: compraste {pm}.',
  'buy.status.expired': 'La página de pago venció sin pagarse. No se cobró nada.',
  'buy.status.cancelled': 'Pago cancelado. No se cobró nada.',
  'error.SALE_INVENTORY_SHORT': 'La venta tiene menos PM que esta compra. Prueba con un monto menor.',
  'error.PURCHASE_CAP_EXCEEDED': 'Es más de lo que una billetera puede comprar con tarjeta en el período. Prueba un paquete menor más tarde o compra con USDC.',
  'error.QUOTE_MISMATCH': 'El precio cambió antes de la compra. Revisa el nuevo monto e inténtalo de nuevo.',
  'error.AMOUNT_BELOW_MINIMUM': 'Es menos que la compra mínima. Ingresa un monto mayor.',
  'error.RELAY_REVERTED': 'La compra se rechazó en la cadena (firma vencida o incorrecta). No se gastó nada; inténtalo de nuevo.',
};

export default esCO;
