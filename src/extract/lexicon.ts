/**
 * Word lists that steer one-time-code ranking. Entries are regular-expression
 * sources, matched case-insensitively with Unicode semantics. Latin and
 * Cyrillic entries match whole words; CJK entries match anywhere.
 */

/** Words that name a one-time code (en, de, fr, es, it, pt, nl, pl, sv, da/no, ru, tr, cs/sk/hu, fi/et/is, vi, ca/oc, ro, cy, fa, ur, el, hy, ka). */
export const CODE_WORDS: readonly string[] = [
  // en
  'verification code', 'security code', 'confirmation code', 'login code', 'log-in code', 'sign-in code', 'signin code', 'access code', 'authentication code', 'auth code',
  'one[- ]time (?:pass(?:code|word)|code|pin|password)', 'single[- ]use code', 'temporary code', 'otp', 'passcode', 'pin(?: code)?', '2fa', 'mfa',
  // "Your token is 123456": what some systems call their code (de Token, fr jeton, ru токен)
  'token', 'jeton', 'токен\\p{L}*',
  // generic "...code": en code, de Bestätigungscode, nl verificatiecode, fr code, passcode
  '\\p{L}*codes?',
  // de / fr / es / pt / it / nl
  'einmal\\p{L}*', 'tan', 'usage unique', 'mot de passe temporaire', 'c[óo]digo\\p{L}*', 'clave', 'un solo uso', 'senha', 'uso único', 'codice', 'monouso', 'eenmalig\\p{L}*', 'inlogcode',
  // pl / sv / tr / da / no
  '\\p{L}*kod\\p{L}{0,3}', 'jednorazow\\p{L}*', 'engångs\\p{L}*', '\\p{L}*kode\\p{L}{0,2}',
  // cs / sk / hu
  '\\p{L}*kód\\p{L}{0,3}',
  // fi / et / is compounds whose last part is "code" (vahvistuskoodi, kertakäyttökoodisi, kinnituskood, staðfestingarkóði)
  '\\p{L}*koodi\\p{L}{0,4}', '\\p{L}*kood\\p{L}{0,2}', '\\p{L}*kóð\\p{L}{0,3}',
  // ru
  'код\\p{L}*', 'одноразов\\p{L}*',
  // vi
  'mã(?: xác (?:minh|nhận|thực))?',
  // ca / oc codi, còdi; ro codul, cod de verificare; cy cod dilysu (not a bare "cod": COD is cash on delivery)
  'c[oò]dis?', 'codul\\p{L}*', 'cod (?:de (?:verificare|confirmare|securitate|acces|autentificare)|dilysu|diogelwch|mewngofnodi)',
  // fa, ur; el κωδικός but not κωδικός πρόσβασης (password); hy, ka
  'کد(?:ی|های)?', 'کوڈ', 'κωδικ\\p{L}*(?! πρόσβασης)', 'կոդ\\p{L}*', 'კოდ\\p{L}*',
];

/**
 * CJK and Korean words that name a one-time code, and the words of Arabic,
 * Hebrew, Indic and Thai scripts, matched anywhere (no word boundaries in
 * those scripts, or combining marks that break them).
 */
export const CODE_WORDS_CJK: readonly string[] = [
  '認証コード', '確認コード', 'ワンタイムパスワード', 'ワンタイム', 'パスコード', 'セキュリティコード', '認証番号', '確認番号', '暗証番号', 'コード',
  '验证码', '驗證碼', '校验码', '动态码', '动态密码', '确认码', '安全码', '一次性',
  // zh-Hans / zh-Hant / yue: 代码 (code), and the Traditional forms of the words above
  '代码', '代碼', '登录码', '登錄碼', '登入碼', '確認碼', '安全碼', '動態碼', '校驗碼',
  '인증번호', '인증 코드', '코드', 'トークン', '令牌', '토큰',
  // ar, he, hi
  'رمز', 'كود', 'קוד', 'कोड', 'ओटीपी',
  // ta (குறியீடு and its forms), bn, te, kn, ml, gu; th รหัส but not รหัสผ่าน (password)
  'குறியீ', 'কোড', 'కోడ్', 'ಕೋಡ್', 'കോഡ്', 'કોડ', 'รหัส(?!ผ่าน)',
];

/** Words that name a token (what some systems call their code): a lower-case or long code may follow them. */
export const TOKEN_WORDS: readonly string[] = ['token\\p{L}*', 'jeton', 'токен\\p{L}*', 'mã', 'kode'];

/** CJK, Arabic, Hebrew and Devanagari words that name a code or token (matched anywhere). */
export const TOKEN_WORDS_ANYWHERE: readonly string[] = ['トークン', '令牌', '토큰', 'رمز', 'الرمز', 'קוד', 'הקוד', 'कोड', 'टोकन'];

/**
 * Words asking the reader to copy or paste something (en, de, fr, es, pt,
 * it, nl, pl, sv, tr, vi, id, ru): a long token the mail asks to be copied
 * is a code.
 */
export const COPY_WORDS: readonly string[] = [
  'copy', 'paste', 'kopier\\p{L}*', 'einfüg\\p{L}*', 'copie\\p{L}*', 'copier', 'colle\\p{L}*', 'coller', 'copi[ae]\\p{L}*', 'peg[ae]\\p{L}*', 'col[ae]\\p{L}*', 'incoll\\p{L}*',
  'kopieer\\p{L}*', 'plak\\p{L}*', 'kopiuj\\p{L}*', 'skopiuj\\p{L}*', 'wklej\\p{L}*', 'klistra\\p{L}*', 'kopyala\\p{L}*', 'yapıştır\\p{L}*', 'sao chép', 'dán', 'salin', 'tempel\\p{L}*',
  'скопир\\p{L}*', 'копир\\p{L}*', 'встав\\p{L}*',
];

/** Copy and paste in scripts without word boundaries, and in Arabic, Hebrew and Hindi. */
export const COPY_WORDS_ANYWHERE: readonly string[] = ['コピー', '貼り付け', '复制', '粘贴', '複製', '貼上', '복사', '붙여', 'انسخ', 'نسخ', 'الصق', 'העתק', 'הדבק', 'कॉपी', 'पेस्ट'];

/**
 * Verbs asking the reader to put a number somewhere, matched right before it
 * ("Use 246810 to verify", "Enter 246810 to sign in") in en, de, fr, es, pt,
 * it, nl. With a purpose from {@link USE_PURPOSES} right after the number
 * they announce a code as a code word does.
 */
export const USE_VERBS: readonly string[] = [
  // en
  'use', 'enter', 'type', 'input', 'key in',
  // de
  'verwende', 'verwenden sie', 'benutze', 'benutzen sie', 'nutze', 'nutzen sie', 'gib', 'geben sie', 'tippe',
  // fr
  'utilise[sz]?', 'saisi(?:s|ssez)', 'entre[sz]?', 'tape[sz]?', 'indiquez',
  // es / pt
  'usa', 'utiliza', 'ingresa', 'introduce', 'escribe', 'digite', 'insira', 'informe', 'utilize',
  // it / nl
  'inserisci', 'digita', 'utilizza', 'gebruik', 'voer',
];

/**
 * What a number is to be used for, right after it ("to verify", "pour
 * confirmer", "para iniciar sesión", ", um dich anzumelden", "om in te
 * loggen"): verifying, confirming, signing in, completing a sign-up.
 */
export const USE_PURPOSES: readonly string[] = [
  // en
  'to (?:verify|confirm|validate|authenticate|activate|complete|finish|continue|sign (?:in|up|on)|log ?in|login|reset|recover|unlock)',
  // de ("Gib 246810 ein, um deine Nummer zu bestätigen")
  '(?:ein)?,? um\\b[^.!?\\n]{0,40}?(?:zu bestätigen|zu verifizieren|anzumelden|einzuloggen|zu aktivieren|abzuschließen|fortzufahren)',
  // fr
  'pour (?:vérifier|confirmer|valider|activer|finaliser|continuer|vous (?:connecter|identifier|inscrire)|(?:se )?connecter)',
  // es / pt
  'para (?:verificar|confirmar|validar|activar|ativar|completar|continuar|iniciar sesión|acceder|entrar|fazer login|acessar)',
  // it / nl
  'per (?:verificare|confermare|accedere|attivare|completare|continuare)', 'om\\b[^.!?\\n]{0,40}?te (?:verifiëren|bevestigen|activeren|voltooien)', 'om in te loggen',
];

/** Words about verifying in general: a weaker hint than a word naming the code. */
export const VERIFY_WORDS: readonly string[] = [
  'verification', 'verify', 'two[- ]factor', 'vérification', 'vérifier', 'verificación', 'verificar', 'verificação', 'verifica', 'verificatie',
  'bestätigung\\p{L}*', 'verifizierung\\p{L}*', 'sicherheits\\p{L}*', 'weryfikac\\p{L}*', 'verifiering\\p{L}*', 'doğrulama', 'bekræft\\p{L}*', 'подтвержд\\p{L}*', 'проверочн\\p{L}*',
];

/** CJK and Korean words about verifying in general. */
export const VERIFY_WORDS_CJK: readonly string[] = ['認証', '確認', '验证', '驗證', '인증'];

/**
 * Labels after which a number is NOT a one-time code (order, invoice,
 * reference, promo codes, postal codes, company registration …). A label
 * claims the first number that follows it.
 */
export const LABEL_WORDS: readonly string[] = [
  // en
  'order(?: number| no\\.?| id| code)?', 'product code', 'item code', 'article code', '(?:customer|client) code', 'member(?:ship)? code', 'invoice(?: number| no\\.?)?', 'receipt(?: number| no\\.?)?', 'ref(?:erence)?(?: number| no\\.?)?', 'ticket(?: number| no\\.?)?', 'case(?: number| no\\.?)?',
  'booking(?: reference| number| code)?', 'reservation(?: number| code)?', 'confirmation (?:number|no\\.?)', 'tracking(?: number| code| id)?', 'transaction(?: id| number)?', 'account (?:number|no\\.?|id)', 'customer (?:number|id|no\\.?)',
  'member(?:ship)? (?:number|id|no\\.?)', 'client (?:number|id)', 'user id', 'request id', 'id', 'no\\.', 'nr\\.?', 'serial(?: number)?', 'sku', 'policy(?: number)?', 'claim(?: number)?', 'case (?:number|no\\.?|id)',
  '(?<!(?:verification|security|confirmation|access|pin|code|otp|phone|telephone|mobile) )(?:number|nummer|numéro|número|numero|numer|номер)', 'patient(?: id)?', 'application(?: (?:number|no\\.?|id|reference))?', 'abn', 'acn', 'frn',
  '\\p{L}+nummer', 'no(?=\\s*[:#])', 'sipariş\\p{L}*', 'shipment', 'parcel', 'flight', 'build', 'version', 'ver\\.', 'card ending in', 'ending in', 'last (?:4|four) digits',
  'promo(?:tional)? code', 'discount code', 'coupon(?: code)?', 'voucher(?: code)?', 'gift card(?: code)?', 'referral code', 'area code', 'country code', 'sort code', 'swift(?: code)?', 'zip(?: code)?', 'postal code', 'post ?code',
  'vat(?: no\\.?| number| id)?', 'company (?:no\\.?|number|registration(?: number)?)', 'registered (?:in|number)', 'hrb', 'ust-idnr\\.?', 'kvk', 'siret', 'siren', 'nip', 'krs', 'regon', 'org\\.? ?nr\\.?',
  // de
  'bestell\\p{L}*', 'rechnung\\p{L}*', 'auftrag\\p{L}*', 'kunden\\p{L}*', 'sendung\\p{L}*', 'vorgang\\p{L}*', 'referenz\\p{L}*', 'rabatt\\p{L}*', 'gutschein\\p{L}*', 'plz', 'postleitzahl', 'konto\\p{L}*', 'buchung\\p{L}*', 'endet auf',
  // fr
  'commande', 'facture', 'référence', 'réf\\.?', 'dossier', 'réservation', 'code postal', 'code promo', 'numéro de (?:commande|client|suivi|facture)',
  // es / pt / it
  'pedido', 'factura', 'referencia', 'reserva', 'código postal', 'código promocional', 'cupón', 'encomenda', 'fatura', 'referência', 'cep',
  'ordine', 'fattura', 'riferimento', 'prenotazione', 'codice postale', 'cap', 'codice sconto',
  // nl
  'bestelling\\p{L}*', 'bestelnummer', 'factuur\\p{L}*', 'referentie', 'kortingscode', 'klantnummer', 'ordernummer',
  // pl / sv
  'zamówieni\\p{L}*', 'faktur\\p{L}*', 'kod pocztowy', 'kod rabatowy', 'numer klienta', 'beställning\\p{L}*', 'kundnummer', 'postnummer', 'rabattkod',
  // ru
  'заказ\\p{L}*', 'сч[её]т\\p{L}*', 'индекс',
  // order and its number in cs/sk, uk, ro, mn, hu, el, fi, da/no, id/ms, vi (the order-confirmation strings of shop systems' catalogues)
  'objednáv\\p{L}*', 'číslo', 'замовлен\\p{L}*', 'comand\\p{L}*', 'захиалг\\p{L}*', 'дугаар', 'rendelés\\p{L}*', 'παραγγελί\\p{L}*', 'tilau\\p{L}*', 'ordre\\p{L}*', 'bestilling\\p{L}*',
  'pesanan', 'đơn hàng', 'mã đơn hàng', 'număr(?:ul)?',
  // a card or account's visible part ("card ending 4242")
  'card (?:number|ending(?: with| in)?)', '(?:a/c|acct?\\.?)(?: no\\.?)?',
];

/** CJK labels that claim the following number. */
export const LABEL_WORDS_CJK: readonly string[] = ['ご注文番号', '注文番号', '注文', '請求', '郵便番号', '〒', '予約番号', 'お問い合わせ番号', '订单号', '订单', '訂單', '发票', '邮编', '邮政编码', '单号', '주문', 'คำสั่งซื้อ', 'הזמנה', 'ऑर्डर'];

/**
 * Words of an offer (en, de, fr, es, it, pt, nl, pl, sv, ru): a code in the
 * same sentence is a promotional code ("Use code SPRING15 at checkout for 15%
 * off"), not a one-time code.
 */
export const PROMO_WORDS: readonly string[] = [
  '\\d+\\s?% off', 'off (?:your|everything|all|the|any)', 'at checkout', 'discount\\p{L}*', 'sale', 'free shipping', 'coupon\\p{L}*', 'voucher\\p{L}*', 'promo\\p{L}*', 'save (?:\\d+|big|more|up to)',
  'rabatt\\p{L}*', 'gutschein\\p{L}*', 'versandkostenfrei', 'réduction', 'remise', 'soldes', 'descuento\\p{L}*', 'rebajas', 'cupón', 'sconto', 'saldi', 'desconto\\p{L}*', 'cupom',
  'korting\\p{L}*', 'rabat\\p{L}*', 'zniżk\\p{L}*', 'скидк\\p{L}*', 'промокод\\p{L}*', 'распродаж\\p{L}*',
];

/** Offer words of scripts without word boundaries. */
export const PROMO_WORDS_CJK: readonly string[] = ['割引', 'クーポン', 'セール', '折扣', '优惠', '優惠', '할인', '쿠폰'];

/** Words of a telephone number's label: a number right after them is a phone number. */
export const PHONE_WORDS: readonly string[] = [
  'phone', 'tel\\.?', 'telephone', 'call(?: us)?(?: at| on)?', 'fax', 'mobile', 'hotline', 'whatsapp', 'telefon\\p{L}*', 'téléphone', 'teléfono', 'telefone', 'telefoon', 'telefono', 'ring oss(?: på)?', 'appelez', 'llámanos', 'ligue', 'bel ons', 'zadzwoń', 'телефон\\p{L}*', 'звоните',
];

/** CJK phone labels. */
export const PHONE_WORDS_CJK: readonly string[] = ['電話', '电话', 'お電話', '전화', '고객센터', '客服', 'お問い合わせ'];

/** Words of a postal address: 4–5 digit numbers near them are street numbers or postal codes. */
export const ADDRESS_WORDS: readonly string[] = [
  'street', 'st\\.?', 'avenue', 'ave\\.?', 'road', 'rd\\.', 'boulevard', 'blvd\\.?', 'suite', 'ste\\.', 'p\\.? ?o\\.? box', 'postfach', 'postboks', 'postbus', 'box',
  '\\p{L}*(?:straße|strasse|str\\.|allee|platz|gasse|weg)', 'rue', 'cedex', 'calle', 'avenida', 'plaza', 'viale', 'piazza', 'rua', 'travessa',
  '\\p{L}*(?:straat|laan|plein|gracht)', 'ulica', 'ul\\.', 'aleja', '\\p{L}*(?:gatan|vägen|torget)', 'улица', 'ул\\.', 'проспект',
  'inc\\.?', 'gmbh', 'ltd\\.?', 'llc', 'b\\.v\\.', 's\\.a\\.s?\\.?', 's\\.r\\.l\\.', 'sp\\. z o\\.o\\.',
  'usa', 'united states', 'united kingdom', 'uk', 'germany', 'deutschland', 'france', 'españa', 'spain', 'italia', 'italy', 'nederland', 'netherlands', 'polska', 'poland', 'sverige', 'sweden', 'schweiz', 'österreich', 'россия',
];

/** CJK address words. */
export const ADDRESS_WORDS_CJK: readonly string[] = ['丁目', '番地', '〒', '都', '県', '省', '市', '区'];

/** Compiles word lists into one global regex: whole words for the first list, anywhere for the second. */
export function compileWords(words: readonly string[], anywhere: readonly string[] = []): RegExp {
  const byLength = (a: string, b: string): number => b.length - a.length;
  const parts: string[] = [];
  if (words.length > 0) parts.push(`(?<![\\p{L}\\p{N}])(?:${[...words].sort(byLength).join('|')})(?![\\p{L}\\p{N}])`);
  if (anywhere.length > 0) parts.push(`(?:${[...anywhere].sort(byLength).join('|')})`);
  return new RegExp(parts.join('|'), 'giu');
}

/**
 * Words and abbreviations that emails write in capitals and that are never
 * letter-only codes: calls to action, headings, currencies, time zones,
 * technical abbreviations. (A word the message also writes in lower case,
 * such as a brand name, is ruled out without being listed.)
 */
export const CAPITAL_WORDS: ReadonlySet<string> = new Set([
  'VERIFY', 'VERIFIED', 'VERIFICATION', 'CONFIRM', 'CONFIRMED', 'CONFIRMATION', 'ACTIVATE', 'ACTIVATION', 'ACCOUNT', 'ACCOUNTS', 'PASSWORD', 'PASSCODE', 'SECURITY', 'SECURE',
  'LOGIN', 'LOGOUT', 'SIGNIN', 'SIGNUP', 'SIGNED', 'REGISTER', 'RESET', 'CHANGE', 'UPDATE', 'UPDATED', 'REQUEST', 'REQUESTED', 'ACCESS', 'ACTION', 'REQUIRED', 'IMPORTANT',
  'URGENT', 'WARNING', 'NOTICE', 'ALERT', 'ATTENTION', 'REMINDER', 'WELCOME', 'HELLO', 'THANKS', 'THANK', 'PLEASE', 'EXPIRES', 'EXPIRED', 'EXPIRING', 'MINUTES', 'SECONDS',
  'HOURS', 'TODAY', 'TOMORROW', 'INVITATION', 'INVITED', 'SUBSCRIBE', 'UNSUBSCRIBE', 'PRIVACY', 'POLICY', 'TERMS', 'SUPPORT', 'CONTACT', 'SETTINGS', 'PROFILE', 'DEVICE',
  'BROWSER', 'LOCATION', 'ADDRESS', 'EMAIL', 'MOBILE', 'NUMBER', 'CUSTOMER', 'SERVICE', 'SERVICES', 'COMPANY', 'LIMITED', 'INCORPORATED', 'DETAILS', 'SUMMARY', 'STATUS',
  'SUCCESS', 'FAILED', 'DECLINED', 'APPROVED', 'PENDING', 'COMPLETE', 'COMPLETED', 'CONTINUE', 'SUBMIT', 'CANCEL', 'DELETE', 'REMOVE', 'ORDER', 'ORDERS', 'INVOICE', 'RECEIPT',
  'PAYMENT', 'BILLING', 'SHIPPING', 'DELIVERY', 'TRACKING', 'RETURN', 'REFUND', 'OFFER', 'OFFERS', 'PROMO', 'COUPON', 'DISCOUNT', 'SPECIAL', 'LIMITED', 'EXCLUSIVE', 'MEMBER',
  'MEMBERS', 'PREMIUM', 'BUSINESS', 'PERSONAL', 'PRIVATE', 'PUBLIC', 'OFFICIAL', 'ONLINE', 'OFFLINE', 'DOWNLOAD', 'INSTALL', 'CLICK', 'BUTTON', 'BELOW', 'ABOVE', 'STRONG',
  'CAUTION', 'DANGER', 'BEWARE', 'PHISHING', 'SCAM', 'FRAUD', 'NEVER', 'ALWAYS', 'ONLY', 'DIGIT', 'DIGITS', 'CHARACTERS', 'LETTERS', 'STEP', 'STEPS', 'FINAL', 'AGAIN',
  'HTTPS', 'HTTP', 'HTML', 'SMTP', 'IMAP', 'HTTPS', 'JSON', 'XHTML', 'MSO', 'CSS', 'PDF', 'ASCII', 'UTF', 'TOTP', 'HOTP', 'FIDO', 'WEBAUTHN', 'PASSKEY', 'OAUTH', 'SAML', 'OIDC',
  'USD', 'EUR', 'GBP', 'CHF', 'JPY', 'CNY', 'SEK', 'NOK', 'DKK', 'PLN', 'CAD', 'AUD', 'NZD', 'INR', 'BRL', 'MXN', 'RUB', 'KRW', 'UTC', 'GMT', 'CEST', 'CET', 'BST', 'PST', 'PDT',
  'EST', 'EDT', 'CST', 'CDT', 'MST', 'MDT', 'AEST', 'AEDT', 'JST', 'IST', 'NOTE', 'FREE', 'CODE', 'CODES', 'OTP',
  // de / fr / es / it / pt / nl
  'BESTÄTIGEN', 'BESTÄTIGUNG', 'WICHTIG', 'ACHTUNG', 'HINWEIS', 'KONTO', 'PASSWORT', 'ANMELDEN', 'CONFIRMER', 'ATTENTION', 'IMPORTANT', 'COMPTE', 'CONFIRMAR', 'CUENTA',
  'IMPORTANTE', 'ATENCIÓN', 'CONFERMA', 'ATTENZIONE', 'BEVESTIG', 'BEVESTIGEN', 'BELANGRIJK',
]);
