// The app's words in es-MX: es-ES with the words Mexico uses.
import type { Messages } from './en-US.ts';
import { esES } from './es-ES.ts';

const esMX: Messages = {
  ...esES,
  'market.depth.lmsr': 'Costo de comprar cada resultado según el tamaño de la orden',
  'market.depth.cost': 'Costo',
  'market.depth.avgPrice': 'Precio promedio',
  'leaderboard.title': 'Tabla de líderes',
  'nav.leaderboard': 'Tabla de líderes',
  'leaderboard.who': 'Cartera',
  'market.holders.wallet': 'Cartera',
  'market.holders.wallets': 'Carteras con acciones',
  'profile.marketsEmpty': 'Esta cartera no ha creado ningún mercado.',
  'error.WALLET_AUTH_REQUIRED': 'Inicia sesión con tu cartera para ver esto.',
  'error.FORBIDDEN': 'Tu cartera no tiene permiso para ver esto.',
  'category.FUN': 'Entretenimiento',
  'markets.clear': 'Borrar filtros',
  // Portfolio, claims, creator funds, the ledger proof check and the resolution actions (issue 23).
  'nav.portfolio': 'Portafolio',
  'portfolio.title': 'Tu portafolio',
  'portfolio.loading': 'Cargando tu portafolio…',
  'portfolio.signInFirst': 'Conecta tu cartera e inicia sesión para ver tus pagos, fondos de creador, órdenes y saldos.',
  'portfolio.claimed': 'Cobrado: {amount} enviado a tu cartera.',
  'portfolio.collected': 'Recogido de {count} mercado(s); el dinero va en camino a tu cartera.',
  'portfolio.ledger.none': 'Todavía no hay nada registrado en la cadena para esta cartera.',
  'portfolio.proof.noWallet': 'No hay cartera en el navegador para consultar la cadena: no se pudo comprobar la prueba contra el contrato.',
  'portfolio.proof.wrongChain': 'Tu cartera está en otra red, así que no se pudo leer la raíz de la cadena. Cambia de red y comprueba de nuevo.',
  'resolve.challenge.help': 'El creador propuso {outcome}. ¿No estás de acuerdo? Impúgnalo con otro resultado; tu cartera deposita la fianza de impugnación.',
  'resolve.step.signing': 'Confirma en tu cartera…',
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
  // The vote on the market page.
  'resolve.vote.help': 'El resultado está en disputa: los humanos verificados votan hasta {time}, un voto por persona. Tu cartera firma el voto, que se publica con su firma.',
  'error.HUMAN_VERIFICATION_REQUIRED': 'Solo puede votar un humano verificado, y esta cartera no está verificada.',
  'error.ALREADY_VOTED': 'Ya votaste en esta ronda (un voto por persona, carteras vinculadas incluidas).',
  'error.REPUTATION_RESTRICTED': 'Tu reputación está restringida, así que esta cartera no puede votar.',
  'error.BALLOT_SIGNATURE_INVALID': 'La cartera firmó algo distinto de este voto. Inténtalo de nuevo.',
};

export default esMX;
